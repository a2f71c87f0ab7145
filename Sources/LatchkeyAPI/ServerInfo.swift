/// `GET /health`.
public struct HealthResponse: Codable, Sendable, Equatable {
    /// The server's version, e.g. `0.1.0` (`version`).
    public var version: String
    /// The server's name; Latchkey answers `GoTrue`, like a Supabase Auth server (`name`).
    public var name: String
    /// A one-line description of the server (`description`).
    public var description: String
    /// Latchkey: whether the database answers, `ok` or `unavailable` (`database`).
    public var database: String?
    /// Latchkey: `ready`, or `shutting_down` once the instance drains (`status`).
    public var status: String?

    /// Creates a health response.
    public init(version: String, name: String, description: String, database: String? = nil, status: String? = nil) {
        self.version = version
        self.name = name
        self.description = description
        self.database = database
        self.status = status
    }
}

/// `GET /settings`: which sign-in methods the server offers.
public struct ServerSettings: Codable, Sendable, Equatable {
    /// Which sign-in providers are on, by name, e.g. `email`, `phone`, `anonymous_users` (`external`).
    public var external: [String: Bool]
    /// Whether new sign-ups are refused (`disable_signup`).
    public var disableSignup: Bool
    /// Whether email addresses count as confirmed at sign-up, with no confirmation email (`mailer_autoconfirm`).
    public var mailerAutoconfirm: Bool
    /// Whether phone numbers count as confirmed at sign-up, with no confirmation SMS (`phone_autoconfirm`).
    public var phoneAutoconfirm: Bool
    /// The SMS provider's name, or `""` when there is none (`sms_provider`).
    public var smsProvider: String
    /// Whether SAML single sign-on is on (`saml_enabled`).
    public var samlEnabled: Bool
    /// Whether passkeys are on (`passkeys_enabled`; `false` from servers that predate them).
    public var passkeysEnabled: Bool

    /// Creates a settings response.
    public init(
        external: [String: Bool], disableSignup: Bool, mailerAutoconfirm: Bool, phoneAutoconfirm: Bool,
        smsProvider: String, samlEnabled: Bool, passkeysEnabled: Bool = false
    ) {
        self.external = external
        self.disableSignup = disableSignup
        self.mailerAutoconfirm = mailerAutoconfirm
        self.phoneAutoconfirm = phoneAutoconfirm
        self.smsProvider = smsProvider
        self.samlEnabled = samlEnabled
        self.passkeysEnabled = passkeysEnabled
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        external = try c.decode([String: Bool].self, forKey: .external)
        disableSignup = try c.decode(Bool.self, forKey: .disableSignup)
        mailerAutoconfirm = try c.decode(Bool.self, forKey: .mailerAutoconfirm)
        phoneAutoconfirm = try c.decode(Bool.self, forKey: .phoneAutoconfirm)
        smsProvider = try c.decode(String.self, forKey: .smsProvider)
        samlEnabled = try c.decode(Bool.self, forKey: .samlEnabled)
        passkeysEnabled = try c.decodeIfPresent(Bool.self, forKey: .passkeysEnabled) ?? false
    }

    enum CodingKeys: String, CodingKey {
        case external
        case disableSignup = "disable_signup"
        case mailerAutoconfirm = "mailer_autoconfirm"
        case phoneAutoconfirm = "phone_autoconfirm"
        case smsProvider = "sms_provider"
        case samlEnabled = "saml_enabled"
        case passkeysEnabled = "passkeys_enabled"
    }
}

/// A message captured by the development mailbox (`GET /_dev/mailbox`).
public struct MailboxMessage: Codable, Sendable, Equatable {
    /// The message's id, a lower-case UUID (`id`).
    public var id: String
    /// The recipients' addresses (`to`).
    public var to: [String]
    /// The subject line (`subject`).
    public var subject: String
    /// The plain-text body (`text`).
    public var text: String
    /// The HTML body (`html`).
    public var html: String
    /// When the message was captured, as an ISO 8601 date string (`created_at`).
    public var createdAt: String

    /// Creates a mailbox message.
    public init(id: String, to: [String], subject: String, text: String, html: String, createdAt: String) {
        self.id = id
        self.to = to
        self.subject = subject
        self.text = text
        self.html = html
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, to, subject, text, html
        case createdAt = "created_at"
    }
}

/// `GET /_dev/mailbox` with `Accept: application/json`.
public struct MailboxResponse: Codable, Sendable, Equatable {
    /// The captured messages (`messages`).
    public var messages: [MailboxMessage]
    /// Creates a mailbox response.
    public init(messages: [MailboxMessage]) { self.messages = messages }
}
