import Foundation

/// Delivers SMS (or WhatsApp) messages. Twilio is one implementation; the dev outbox another.
public protocol SMSSender: Sendable {
    /// The provider's name, as `GET /settings` reports it (`sms_provider`); `""` for the dev outbox.
    var providerName: String { get }
    /// Sends `body` to `phone` (E.164 digits without `+`) over `channel` (`sms` or `whatsapp`) and
    /// returns the provider's message id; throws when the provider refused or could not be reached.
    func send(to phone: String, body: String, channel: String) async throws -> String
    /// Sends `message`; by default its text, through ``send(to:body:channel:)``. The `send-sms`
    /// hook sends the code instead.
    func send(_ message: SMSMessage) async throws -> String
}

extension SMSSender {
    public func send(_ message: SMSMessage) async throws -> String {
        try await send(to: message.phone, body: message.body, channel: message.channel)
    }
}

/// An SMS carrying a code: its text, and what it is made of.
public struct SMSMessage: Sendable {
    /// E.164 digits without `+`.
    public var phone: String
    public var body: String
    /// `sms` or `whatsapp`.
    public var channel: String
    public var code: String
    /// What the code is for, as the `send-sms` hook's `sms_type` says it: a code's kind
    /// (`sms`, `phone_change`), or `mfa` for a phone factor's (GoTrue's).
    public var purpose: String
    public var user: UserRecord?

    public init(phone: String, body: String, channel: String, code: String, kind: OneTimeTokenKind, user: UserRecord?) {
        self.init(phone: phone, body: body, channel: channel, code: code, purpose: kind.rawValue, user: user)
    }

    public init(phone: String, body: String, channel: String, code: String, purpose: String, user: UserRecord?) {
        self.phone = phone
        self.body = body
        self.channel = channel
        self.code = code
        self.purpose = purpose
        self.user = user
    }
}

/// Keeps SMS messages in the development mailbox (subject `SMS`), for when no provider is
/// configured: `latchkey mailbox` and `GET /_dev/mailbox?to=<phone>` show them.
public struct DevSMSOutbox: SMSSender {
    let store: any DevMailboxStore
    let time: any TimeSource
    /// The message ids it answers with.
    let random: any RandomSource

    public init(store: any DevMailboxStore, time: any TimeSource, random: any RandomSource) {
        self.store = store
        self.time = time
        self.random = random
    }

    public var providerName: String { "" }

    public func send(to phone: String, body: String, channel: String) async throws -> String {
        let subject = channel == "whatsapp" ? "WhatsApp" : "SMS"
        try await store.appendMailbox(EmailMessage(to: [phone], subject: subject, text: body, html: ""), at: time.now())
        return "dev-\(random.uuid().lowercasedString)"
    }
}
