/// An email ready to send: recipients, subject, and a plain-text and an HTML part.
public struct EmailMessage: Sendable, Equatable, Codable {
    public var to: [String]
    public var subject: String
    public var text: String
    public var html: String

    public init(to: [String], subject: String, text: String, html: String) {
        self.to = to
        self.subject = subject
        self.text = text
        self.html = html
    }
}
