/// `GET /health`.
public struct HealthResponse: Codable, Sendable, Equatable {
    public var version: String
    public var name: String
    public var description: String

    public init(version: String, name: String, description: String) {
        self.version = version
        self.name = name
        self.description = description
    }
}

/// `GET /settings`: which sign-in methods the server offers.
public struct ServerSettings: Codable, Sendable, Equatable {
    public var external: [String: Bool]
    public var disableSignup: Bool
    public var mailerAutoconfirm: Bool
    public var phoneAutoconfirm: Bool
    public var smsProvider: String
    public var samlEnabled: Bool

    public init(
        external: [String: Bool], disableSignup: Bool, mailerAutoconfirm: Bool, phoneAutoconfirm: Bool,
        smsProvider: String, samlEnabled: Bool
    ) {
        self.external = external
        self.disableSignup = disableSignup
        self.mailerAutoconfirm = mailerAutoconfirm
        self.phoneAutoconfirm = phoneAutoconfirm
        self.smsProvider = smsProvider
        self.samlEnabled = samlEnabled
    }

    enum CodingKeys: String, CodingKey {
        case external
        case disableSignup = "disable_signup"
        case mailerAutoconfirm = "mailer_autoconfirm"
        case phoneAutoconfirm = "phone_autoconfirm"
        case smsProvider = "sms_provider"
        case samlEnabled = "saml_enabled"
    }
}

/// A message captured by the development mailbox (`GET /_dev/mailbox`).
public struct MailboxMessage: Codable, Sendable, Equatable {
    public var id: String
    public var to: [String]
    public var subject: String
    public var text: String
    public var html: String
    public var createdAt: String

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
    public var messages: [MailboxMessage]
    public init(messages: [MailboxMessage]) { self.messages = messages }
}
