/// An error body in the 2024-01-01 dialect: `{"code": "…", "message": "…"}`.
///
/// Latchkey adds, for a refused one-time code, `reason` (`invalid`, `expired` or `exhausted`)
/// and `attempts_remaining`; GoTrue reports all three as `otp_expired`.
public struct APIErrorBody: Codable, Sendable, Equatable {
    public var code: ErrorCode
    public var message: String
    public var weakPassword: WeakPassword?
    public var reason: String?
    public var attemptsRemaining: Int?

    public init(
        code: ErrorCode, message: String, weakPassword: WeakPassword? = nil, reason: String? = nil,
        attemptsRemaining: Int? = nil
    ) {
        self.code = code
        self.message = message
        self.weakPassword = weakPassword
        self.reason = reason
        self.attemptsRemaining = attemptsRemaining
    }

    enum CodingKeys: String, CodingKey {
        case code, message, reason
        case weakPassword = "weak_password"
        case attemptsRemaining = "attempts_remaining"
    }
}

/// An error body in the legacy dialect: `{"code": 400, "error_code": "…", "msg": "…"}`.
public struct LegacyAPIErrorBody: Codable, Sendable, Equatable {
    public var code: Int
    public var errorCode: ErrorCode
    public var msg: String
    public var errorID: String?
    public var weakPassword: WeakPassword?
    public var reason: String?
    public var attemptsRemaining: Int?

    public init(
        code: Int, errorCode: ErrorCode, msg: String, errorID: String? = nil, weakPassword: WeakPassword? = nil,
        reason: String? = nil, attemptsRemaining: Int? = nil
    ) {
        self.code = code
        self.errorCode = errorCode
        self.msg = msg
        self.errorID = errorID
        self.weakPassword = weakPassword
        self.reason = reason
        self.attemptsRemaining = attemptsRemaining
    }

    enum CodingKeys: String, CodingKey {
        case code, msg, reason
        case attemptsRemaining = "attempts_remaining"
        case errorCode = "error_code"
        case errorID = "error_id"
        case weakPassword = "weak_password"
    }
}

/// An OAuth 2.0 error body (RFC 6749 §5.2), used by a few `/token` paths.
public struct OAuthErrorBody: Codable, Sendable, Equatable {
    public var error: String
    public var errorDescription: String

    public init(error: String, errorDescription: String) {
        self.error = error
        self.errorDescription = errorDescription
    }

    enum CodingKeys: String, CodingKey {
        case error
        case errorDescription = "error_description"
    }
}

/// Why a password was refused: GoTrue's `weak_password` object.
public struct WeakPassword: Codable, Sendable, Equatable {
    /// A reason a password was refused.
    public struct Reason: RawRepresentable, Codable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(from decoder: any Decoder) throws {
            self.rawValue = try decoder.singleValueContainer().decode(String.self)
        }
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }
        /// Too short or too long.
        public static let length = Reason(rawValue: "length")
        /// Missing required character classes.
        public static let characters = Reason(rawValue: "characters")
        /// Known from breaches or common-password lists.
        public static let pwned = Reason(rawValue: "pwned")
    }

    public var message: String?
    public var reasons: [Reason]

    public init(message: String? = nil, reasons: [Reason]) {
        self.message = message
        self.reasons = reasons
    }
}
