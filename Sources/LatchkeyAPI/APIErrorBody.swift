/// An error body in the 2024-01-01 dialect: `{"code": "…", "message": "…"}`.
///
/// Latchkey adds, for a refused one-time code, `reason` (`invalid`, `expired` or `exhausted`)
/// and `attempts_remaining`; GoTrue reports all three as `otp_expired`.
public struct APIErrorBody: Codable, Sendable, Equatable {
    /// The machine-readable error code (`code`); a string in this dialect.
    public var code: ErrorCode
    /// A human-readable message (`message`).
    public var message: String
    /// Why a password was refused, on `weak_password` errors (`weak_password`).
    public var weakPassword: WeakPassword?
    /// Latchkey extension: why a one-time code was refused: `invalid`, `expired` or `exhausted` (`reason`).
    public var reason: String?
    /// Latchkey extension: wrong submissions the code still survives (`attempts_remaining`).
    public var attemptsRemaining: Int?

    /// Creates an error body in the 2024-01-01 dialect.
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
    /// The HTTP status, as a number (`code`).
    public var code: Int
    /// The machine-readable error code (`error_code`).
    public var errorCode: ErrorCode
    /// A human-readable message (`msg`).
    public var msg: String
    /// The request id, which GoTrue sends with 5xx errors only (`error_id`).
    public var errorID: String?
    /// Why a password was refused, on `weak_password` errors (`weak_password`).
    public var weakPassword: WeakPassword?
    /// Latchkey extension: why a one-time code was refused: `invalid`, `expired` or `exhausted` (`reason`).
    public var reason: String?
    /// Latchkey extension: wrong submissions the code still survives (`attempts_remaining`).
    public var attemptsRemaining: Int?

    /// Creates an error body in the legacy dialect.
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
    /// The OAuth error, e.g. `invalid_request` or `invalid_grant` (`error`).
    public var error: String
    /// A human-readable description (`error_description`).
    public var errorDescription: String

    /// Creates an OAuth error body.
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
        /// The reason as sent on the wire, e.g. `length`.
        public let rawValue: String
        /// Creates a reason from its wire value; values this version does not name are kept.
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

    /// A human-readable explanation (`message`), when the server sends one.
    public var message: String?
    /// Every rule the password broke (`reasons`).
    public var reasons: [Reason]

    /// Creates a weak-password object.
    public init(message: String? = nil, reasons: [Reason]) {
        self.message = message
        self.reasons = reasons
    }
}
