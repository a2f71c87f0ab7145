/// What `POST /otp` and `POST /resend` answer.
///
/// GoTrue answers `{}` (or `{"message_id"}` for SMS); Latchkey adds where the code went and its
/// rules, which clients that do not know them ignore.
public struct OTPResponse: Codable, Sendable, Equatable {
    /// The SMS provider's message id.
    public var messageID: String?
    /// `email` or `sms`.
    public var channel: String?
    /// The masked address the code went to, e.g. `a***@example.com`.
    public var sentTo: String?
    /// Digits in the code.
    public var codeLength: Int?
    /// Seconds the code stays valid.
    public var expiresIn: Int?
    /// Seconds before another code may be requested.
    public var resendAfter: Int?
    /// Wrong submissions the code survives.
    public var maxAttempts: Int?

    /// Creates a response; every field may be absent.
    public init(
        messageID: String? = nil, channel: String? = nil, sentTo: String? = nil, codeLength: Int? = nil,
        expiresIn: Int? = nil, resendAfter: Int? = nil, maxAttempts: Int? = nil
    ) {
        self.messageID = messageID
        self.channel = channel
        self.sentTo = sentTo
        self.codeLength = codeLength
        self.expiresIn = expiresIn
        self.resendAfter = resendAfter
        self.maxAttempts = maxAttempts
    }

    enum CodingKeys: String, CodingKey {
        case channel
        case messageID = "message_id"
        case sentTo = "sent_to"
        case codeLength = "code_length"
        case expiresIn = "expires_in"
        case resendAfter = "resend_after"
        case maxAttempts = "max_attempts"
    }
}
