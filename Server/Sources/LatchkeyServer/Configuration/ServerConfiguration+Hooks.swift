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
            let key = "hook-" + name.environmentName.lowercased().replacingOccurrences(of: "_", with: "-")
            let variable = "GOTRUE_HOOK_\(name.environmentName)"
            guard try reader.bool(key + "-enabled") ?? false else { continue }
            guard let uri = reader.string(key + "-uri") else {
                throw ConfigurationError("\(variable)_ENABLED is on but \(variable)_URI is empty")
            }
            do {
                settings.endpoints[name] = try HookEndpoint(uri: uri, secrets: reader.string(key + "-secrets") ?? "")
            } catch let error as HookEndpoint.Invalid {
                throw ConfigurationError("\(variable)_URI or _SECRETS: \(error.description)")
            }
        }
        settings.timeout = try reader.seconds("hook-timeout") ?? 5
        guard (1...60).contains(settings.timeout) else {
            throw ConfigurationError("hook-timeout (LATCHKEY_HOOK_TIMEOUT) must be 1 to 60 seconds")
        }
        settings.protectsClaims = try reader.bool("hook-protect-claims") ?? true
        return settings
    }
}
