import Foundation
import LatchkeyAPI
import LatchkeyCore
import LatchkeyDelivery
import LatchkeyStore
import Logging
import NIOCore

/// Everything `latchkey serve` needs, read once at start (see ``ServerConfiguration/load(environment:overrides:)``).
public struct ServerConfiguration: Sendable {
    public var host: String
    public var port: Int
    /// The folder holding the SQLite database and the generated keys.
    public var dataDirectory: String
    /// The SQLite file; defaults to `latchkey.sqlite` in the data folder.
    public var databasePath: String
    /// PostgreSQL instead of SQLite, when set.
    public var postgres: PostgresDatabase.Options?
    /// A header whose right-most address is trusted as the client IP (GoTrue's
    /// `GOTRUE_RATE_LIMIT_HEADER`; set only behind a proxy).
    public var trustedIPHeader: String?
    /// The proxies whose `X-Forwarded-For` is believed (`LATCHKEY_TRUSTED_PROXIES`).
    var trustedProxies: [IPNetwork] = []
    /// `GOTRUE_JWT_KEYS`, parsed.
    public var jwtKeys: [[String: JSONValue]]
    /// `GOTRUE_JWT_SECRET`.
    public var jwtSecret: String?
    /// The server secret from `LATCHKEY_SERVER_SECRET` or `LATCHKEY_SERVER_SECRET_FILE`; `nil`:
    /// the data folder's `server-secret` (made on first start).
    public var serverSecret: [UInt8]?
    /// Threads for password hashing.
    public var hashingThreads: Int
    /// Whether the dev mailbox answers clients that are not on this machine.
    public var devMailboxPublic: Bool
    /// The domain's policy.
    public var auth: AuthConfiguration
    /// The templates messages are rendered from (Mustache; defaults with an operator's overrides).
    public var templates: MessageTemplates = .defaults
    /// How logs are written: the level, JSON or text, and whether each request gets an `info` line.
    public var logging = LogSettings()
    /// Prometheus metrics: off, or where `/metrics` is served.
    public var metrics = MetricsSettings()
    /// The operator's hooks (`GOTRUE_HOOK_*`): none unless some are on.
    public var hooks = HookSettings()
    /// The webhook endpoint from the environment, if any.
    public var webhook = WebhookSettings()
    /// Whether spans are exported (`OTEL_TRACES_EXPORTER=otlp` or an OTLP endpoint).
    public var tracing = false
    /// The hosted pages and the operators' console.
    public var pages = PageSettings(
        enabled: true, adminConsole: false, adminSession: 900, renderer: .defaults(brand: .init(appName: "Latchkey")))
    /// The SMTP server mail goes to; `nil`: the dev mailbox keeps it.
    public var smtp: SMTPConfiguration?
    /// How failed deliveries are retried.
    public var mailRetry: MailRetryPolicy
    /// Twilio for SMS; `nil`: the dev mailbox keeps them (unless ``unusableSMSProvider`` is set).
    public var twilio: TwilioConfiguration?
    /// An SMS provider named without the credentials it needs (GoTrue starts so, and fails each
    /// SMS): every SMS then fails with `Unable to get SMS provider`.
    public var unusableSMSProvider: String?
    /// What the configuration accepted but the operator should know, logged once at start.
    public var warnings: [String] = []
    /// Whose defaults hold: Latchkey's (`strict`) or GoTrue's (`gotrue`, configured the GoTrue way).
    public var profile = SettingsProfile.strict
    /// GoTrue's captcha, when on.
    public var captcha: CaptchaSettings?
    /// `/.well-known/apple-app-site-association`, or `nil` (404).
    public var appleApps: AppleAppSiteAssociation?
    /// Seconds between re-reads of the stored signing keys (a rotation reaches the server within
    /// this time).
    public var keyReloadInterval: Int
    /// Days the audit log keeps events; 0 keeps them for ever.
    public var auditRetentionDays: Int
    /// How long a connection may take over each part of a request.
    public var httpTimeouts = HTTPTimeouts()
    /// Where hooks, webhooks and providers' endpoints may be.
    public var outbound = OutboundPolicy()

    public init(
        host: String = "127.0.0.1", port: Int = 9999, dataDirectory: String = "./latchkey-data", databasePath: String? = nil,
        postgres: PostgresDatabase.Options? = nil,
        trustedIPHeader: String? = nil, jwtKeys: [[String: JSONValue]] = [], jwtSecret: String? = nil,
        hashingThreads: Int = System.coreCount, devMailboxPublic: Bool = false, auth: AuthConfiguration = AuthConfiguration(),
        smtp: SMTPConfiguration? = nil, mailRetry: MailRetryPolicy = MailRetryPolicy(), twilio: TwilioConfiguration? = nil,
        keyReloadInterval: Int = 30, auditRetentionDays: Int = 0
    ) {
        self.auditRetentionDays = auditRetentionDays
        self.keyReloadInterval = keyReloadInterval
        self.twilio = twilio
        self.smtp = smtp
        self.mailRetry = mailRetry
        self.devMailboxPublic = devMailboxPublic
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.databasePath = databasePath ?? (dataDirectory as NSString).appendingPathComponent("latchkey.sqlite")
        self.postgres = postgres
        self.trustedIPHeader = trustedIPHeader
        self.jwtKeys = jwtKeys
        self.jwtSecret = jwtSecret
        self.hashingThreads = hashingThreads
        self.auth = auth
    }
}

/// A setting that could not be read.
public struct ConfigurationError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// How the server logs (`LATCHKEY_LOG_*`).
public struct LogSettings: Sendable, Equatable {
    public enum Format: String, Sendable {
        case text
        case json
    }

    public var level: Logger.Level = .info
    public var format: Format = .text
    /// Each request's line at `info` rather than `debug`.
    public var requests = false

    public init(level: Logger.Level = .info, format: Format = .text, requests: Bool = false) {
        self.level = level
        self.format = format
        self.requests = requests
    }
}

/// Where metrics are served (`LATCHKEY_METRICS_*`, `GOTRUE_METRICS_ENABLED`).
public struct MetricsSettings: Sendable, Equatable {
    public var enabled = false
    /// `/metrics` on the main port, for this bearer token.
    public var token: String?
    /// `/metrics` on a port of its own, on `host`.
    public var port: Int?
    public var host = "127.0.0.1"

    public init(enabled: Bool = false, token: String? = nil, port: Int? = nil, host: String = "127.0.0.1") {
        self.enabled = enabled
        self.token = token
        self.port = port
        self.host = host
    }
}
