import Foundation
import LatchkeyCore
import LatchkeyDelivery

/// The operator's hooks (`GOTRUE_HOOK_<NAME>_ENABLED`, `_URI`, `_SECRETS`) and how they are
/// called (`LATCHKEY_HOOK_TIMEOUT`, `LATCHKEY_HOOK_PROTECT_CLAIMS`).
public struct HookSettings: Sendable {
    /// The hooks that are on, and where each is called.
    public var endpoints: [HookName: HookEndpoint] = [:]
    /// Seconds a call may take, retries included.
    public var timeout = 5
    /// Whether the custom access token hook is held to the claims it may change.
    public var protectsClaims = true

    public init() {}
}

extension ServerConfiguration {
    /// Reads the hooks; one that is on with an unusable URI or secret refuses to start, naming
    /// its variable (GoTrue checks the same at start).
    static func hookSettings(_ reader: SettingReader) throws -> HookSettings {
        var settings = HookSettings()
        for name in HookName.allCases {
            let hook = Setting.hook(name)
            let variable = "GOTRUE_HOOK_\(name.environmentName)"
            guard try reader[hook.enabled] else { continue }
            guard let uri = reader[hook.uri] else {
                throw ConfigurationError("\(variable)_ENABLED is on but \(variable)_URI is empty")
            }
            do {
                settings.endpoints[name] = try HookEndpoint(uri: uri, secrets: reader[hook.secrets] ?? "")
            } catch let error as HookEndpoint.Invalid {
                throw ConfigurationError("\(variable)_URI or _SECRETS: \(error.description)")
            }
        }
        settings.timeout = try reader[\.hookTimeout]
        settings.protectsClaims = try reader[\.hookProtectClaims]
        return settings
    }
}

/// The webhook endpoint the environment names (`LATCHKEY_WEBHOOK_*`); others live in the database.
public struct WebhookSettings: Sendable {
    public var url: String?
    public var secret: String?
    public var events: [String] = []

    public init() {}
}

extension ServerConfiguration {
    /// Reads the environment's webhook endpoint; an unusable URL or secret, or events that are not
    /// event types, refuse to start.
    static func webhookSettings(_ reader: SettingReader) throws -> WebhookSettings {
        var settings = WebhookSettings()
        settings.events = reader[\.webhookEvents]
        guard let url = reader[\.webhookURL] else { return settings }
        if let problem = EndpointURL.problem(url) { throw ConfigurationError("LATCHKEY_WEBHOOK_URL: \(problem)") }
        guard let secret = reader[\.webhookSecret], WebhookSecret(secret) != nil else {
            throw ConfigurationError("LATCHKEY_WEBHOOK_SECRET must be a v1,whsec_<base64> secret when LATCHKEY_WEBHOOK_URL is set")
        }
        if let unknown = settings.events.first(where: { WebhookEventType(rawValue: $0) == nil }) {
            throw ConfigurationError("LATCHKEY_WEBHOOK_EVENTS: '\(unknown)' is not an event type")
        }
        settings.url = url
        settings.secret = secret
        return settings
    }
}
