import LatchkeyAPI

/// An email ready to send: recipients, subject, and a plain-text and an HTML part.
public struct EmailMessage: Sendable, Equatable, Codable {
    public var to: [String]
    public var subject: String
    public var text: String
    public var html: String
    /// What the `send-email` hook gets for this message instead (GoTrue's `user` and
    /// `email_data`), when that hook is on; sealed in the outbox with the rest.
    public var hookPayload: [String: JSONValue]?

    public init(to: [String], subject: String, text: String, html: String, hookPayload: [String: JSONValue]? = nil) {
        self.to = to
        self.subject = subject
        self.text = text
        self.html = html
        self.hookPayload = hookPayload
    }
}
