/// A stable, machine-readable error code, shared by the server and the SDK.
///
/// The set is open: a newer server may send a code this version does not name, and it still
/// decodes. Compare against the named constants:
///
/// ```swift
/// if error.code == .invalidCredentials { … }
/// ```
public struct ErrorCode: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    public init(from decoder: any Decoder) throws {
        self.rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }
}

extension ErrorCode {
    // General
    public static let unknown: ErrorCode = "unknown"
    public static let unexpectedFailure: ErrorCode = "unexpected_failure"
    public static let validationFailed: ErrorCode = "validation_failed"
    public static let badJSON: ErrorCode = "bad_json"
    public static let requestTimeout: ErrorCode = "request_timeout"
    public static let requestEntityTooLarge: ErrorCode = "request_entity_too_large"
    public static let conflict: ErrorCode = "conflict"
    public static let featureDisabled: ErrorCode = "feature_disabled"
    public static let notFound: ErrorCode = "not_found"
    // Users
    public static let emailExists: ErrorCode = "email_exists"
    public static let phoneExists: ErrorCode = "phone_exists"
    public static let userNotFound: ErrorCode = "user_not_found"
    public static let userAlreadyExists: ErrorCode = "user_already_exists"
    public static let userBanned: ErrorCode = "user_banned"
    public static let notAdmin: ErrorCode = "not_admin"
    public static let noAuthorization: ErrorCode = "no_authorization"
    public static let badJWT: ErrorCode = "bad_jwt"
    public static let emailAddressInvalid: ErrorCode = "email_address_invalid"
    public static let emailAddressNotAuthorized: ErrorCode = "email_address_not_authorized"
    public static let emailAddressNotProvided: ErrorCode = "email_address_not_provided"
    // Providers
    public static let signupDisabled: ErrorCode = "signup_disabled"
    public static let emailProviderDisabled: ErrorCode = "email_provider_disabled"
    public static let phoneProviderDisabled: ErrorCode = "phone_provider_disabled"
    public static let providerDisabled: ErrorCode = "provider_disabled"
    public static let anonymousProviderDisabled: ErrorCode = "anonymous_provider_disabled"
    public static let otpDisabled: ErrorCode = "otp_disabled"
    // Sessions and tokens
    public static let sessionNotFound: ErrorCode = "session_not_found"
    public static let sessionExpired: ErrorCode = "session_expired"
    public static let refreshTokenNotFound: ErrorCode = "refresh_token_not_found"
    public static let refreshTokenAlreadyUsed: ErrorCode = "refresh_token_already_used"
    public static let flowStateNotFound: ErrorCode = "flow_state_not_found"
    public static let flowStateExpired: ErrorCode = "flow_state_expired"
    public static let badCodeVerifier: ErrorCode = "bad_code_verifier"
    public static let unexpectedAudience: ErrorCode = "unexpected_audience"
    // Credentials and verification
    public static let invalidCredentials: ErrorCode = "invalid_credentials"
    public static let emailNotConfirmed: ErrorCode = "email_not_confirmed"
    public static let phoneNotConfirmed: ErrorCode = "phone_not_confirmed"
    public static let otpExpired: ErrorCode = "otp_expired"
    public static let weakPassword: ErrorCode = "weak_password"
    public static let samePassword: ErrorCode = "same_password"
    public static let currentPasswordInvalid: ErrorCode = "current_password_invalid"
    public static let currentPasswordRequired: ErrorCode = "current_password_required"
    public static let reauthenticationNeeded: ErrorCode = "reauthentication_needed"
    public static let reauthenticationNotValid: ErrorCode = "reauthentication_not_valid"
    // Rate limits
    public static let overRequestRateLimit: ErrorCode = "over_request_rate_limit"
    public static let overEmailSendRateLimit: ErrorCode = "over_email_send_rate_limit"
    public static let overSMSSendRateLimit: ErrorCode = "over_sms_send_rate_limit"
    // Sending
    public static let smsSendFailed: ErrorCode = "sms_send_failed"
    public static let emailSendFailed: ErrorCode = "email_send_failed"
    // MFA
    public static let insufficientAAL: ErrorCode = "insufficient_aal"
}
