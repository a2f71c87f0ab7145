/// The hooks an operator can point at an HTTP endpoint of their own (`GOTRUE_HOOK_<NAME>_ENABLED`,
/// `_URI`, `_SECRETS`), named as GoTrue names them in a call's `metadata.name`.
public enum HookName: String, Sendable, CaseIterable {
    /// Sends the emails Latchkey would send by SMTP (`email_data` carries the code and link).
    case sendEmail = "send-email"
    /// Sends the SMS codes Latchkey would send through Twilio.
    case sendSMS = "send-sms"
    /// Adds to or changes an access token's claims before it is signed.
    case customAccessToken = "customize-access-token"
    /// Allows or refuses a new user before it is stored.
    case beforeUserCreated = "before-user-created"
    /// Sees every password check of a known user, and may refuse it.
    case passwordVerificationAttempt = "password-verification"
    /// Sees every second-factor code check, and may refuse it.
    case mfaVerificationAttempt = "mfa-verification"

    /// The middle of its environment variables: `GOTRUE_HOOK_<this>_ENABLED`.
    public var environmentName: String {
        switch self {
        case .sendEmail: "SEND_EMAIL"
        case .sendSMS: "SEND_SMS"
        case .customAccessToken: "CUSTOM_ACCESS_TOKEN"
        case .beforeUserCreated: "BEFORE_USER_CREATED"
        case .passwordVerificationAttempt: "PASSWORD_VERIFICATION_ATTEMPT"
        case .mfaVerificationAttempt: "MFA_VERIFICATION_ATTEMPT"
        }
    }
}
