import LatchkeyCore

/// Why handing a message to the SMTP server failed.
public struct SMTPError: Error, Sendable, CustomStringConvertible, MailDeliveryFailure {
    /// A stable code for what went wrong.
    public struct Code: RawRepresentable, Sendable, Hashable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The server could not be reached.
        public static let connectionFailed = Code(rawValue: "connection_failed")
        /// The server closed the connection early.
        public static let connectionClosed = Code(rawValue: "connection_closed")
        /// No reply within the configured time.
        public static let timeout = Code(rawValue: "timeout")
        /// The server answered with an unexpected reply code.
        public static let rejected = Code(rawValue: "rejected")
        /// The server sent something that is not an SMTP reply.
        public static let malformedReply = Code(rawValue: "malformed_reply")
        /// TLS was required and the server does not offer it, or credentials would go in the clear.
        public static let tlsRequired = Code(rawValue: "tls_required")
        /// The server offers no login mechanism this client knows.
        public static let authenticationUnavailable = Code(rawValue: "authentication_unavailable")
        /// The message or an address cannot be sent as it is.
        public static let invalidMessage = Code(rawValue: "invalid_message")
    }

    public let code: Code
    public let message: String
    /// The server's reply code, when it answered.
    public let replyCode: Int?
    /// Whether the server refused the envelope or the message for good (a 5xx reply to `MAIL`,
    /// `RCPT` or `DATA`), or the message itself is unsendable. Everything else may pass on retry.
    public let isPermanent: Bool

    public init(_ code: Code, _ message: String, replyCode: Int? = nil, isPermanent: Bool = false) {
        self.code = code
        self.message = message
        self.replyCode = replyCode
        self.isPermanent = isPermanent
    }

    public var description: String {
        "smtp \(code.rawValue): \(message)" + (replyCode.map { " (reply \($0))" } ?? "")
    }
}
