import LatchkeyAPI

/// An error the domain reports to a caller: a stable code, a message safe to show, and what the
/// HTTP layer needs to answer it (the mapping to a status lives there).
public struct AuthError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The wire code, e.g. `invalid_credentials`.
    public var code: ErrorCode
    /// A message that is safe to send to the client.
    public var message: String
    /// Reasons a password was refused, for `weak_password`.
    public var weakPasswordReasons: [WeakPassword.Reason]?
    /// Seconds the client should wait, for rate limits.
    public var retryAfter: Int?
    /// Set for the OAuth-style `/token` errors: the `error` member of the body.
    public var oauthError: String?
    /// Why a one-time code was refused: `invalid`, `expired` or `exhausted` (Latchkey extension).
    public var reason: String?
    /// Wrong submissions the code still survives (Latchkey extension).
    public var attemptsRemaining: Int?
    /// The HTTP status when it differs from the code's usual one (GoTrue's admin API answers
    /// `user_not_found` with 404, its user API with 403).
    public var status: Int?

    public init(
        _ code: ErrorCode, _ message: String, weakPasswordReasons: [WeakPassword.Reason]? = nil, retryAfter: Int? = nil,
        oauthError: String? = nil
    ) {
        self.code = code
        self.message = message
        self.weakPasswordReasons = weakPasswordReasons
        self.retryAfter = retryAfter
        self.oauthError = oauthError
    }

    public var description: String { "\(code): \(message)" }
}

extension AuthError {
    public static let invalidCredentials = AuthError(.invalidCredentials, "Invalid login credentials")
    public static let emailNotConfirmed = AuthError(.emailNotConfirmed, "Email not confirmed")
    public static let userAlreadyExists = AuthError(.userAlreadyExists, "User already registered")
    public static let otpInvalid = AuthError(.otpExpired, "Token has expired or is invalid")
    public static let linkInvalid = AuthError(.otpExpired, "Email link is invalid or has expired")
    public static let signupDisabled = AuthError(.signupDisabled, "Signups not allowed for this instance")
    public static let otpSignupDisabled = AuthError(.otpDisabled, "Signups not allowed for otp")
    public static let userBanned = AuthError(.userBanned, "User is banned")
    public static let refreshTokenNotFound = AuthError(.refreshTokenNotFound, "Invalid Refresh Token: Refresh Token Not Found")
    public static let refreshTokenAlreadyUsed = AuthError(.refreshTokenAlreadyUsed, "Invalid Refresh Token: Already Used")
    public static let sessionExpired = AuthError(.sessionExpired, "Invalid Refresh Token: Session Expired")
    public static let sessionNotFound = AuthError(.sessionNotFound, "Session from session_id claim in JWT does not exist")
    public static let userNotFound = AuthError(.userNotFound, "User from sub claim in JWT does not exist")
    public static let noAuthorization = AuthError(.noAuthorization, "This endpoint requires a valid Bearer token")
    public static let samePassword = AuthError(.samePassword, "New password should be different from the old password.")
    public static let notAdmin = AuthError(.notAdmin, "User not allowed")
    /// An admin lookup of a user that does not exist: 404, as GoTrue's admin API.
    public static var adminUserNotFound: AuthError {
        var error = AuthError(.userNotFound, "User not found")
        error.status = 404
        return error
    }
    /// `POST /otp` with `intent: signin` for an address or number no user has: 422, as
    /// `user_already_exists` answers `intent: signup` (the API document says both).
    public static var unknownForSignIn: AuthError {
        var error = AuthError(.userNotFound, "User not found")
        error.status = 422
        return error
    }
    public static let emailRequired = AuthError(.validationFailed, "An email address is required")
    public static let requestRateLimit = AuthError(.overRequestRateLimit, "Request rate limit reached")
    public static let emailExists = AuthError(.emailExists, "A user with this email address has already been registered")
    public static let reauthenticationNeeded = AuthError(.reauthenticationNeeded, "Password update requires reauthentication")
    public static let reauthenticationNotValid = AuthError(.reauthenticationNotValid, "Requires a valid reauthentication nonce")

    /// A one-time code that was refused, with why and how many tries remain.
    public static func codeRefused(reason: String, attemptsRemaining: Int?) -> AuthError {
        var error = AuthError.otpInvalid
        error.reason = reason
        error.attemptsRemaining = attemptsRemaining
        return error
    }

    /// A request that failed validation.
    public static func validation(_ message: String) -> AuthError { AuthError(.validationFailed, message) }

    /// `422 validation_failed`: a request the API document allows whose content cannot be used
    /// (a key off its curve, metadata over the size limit, a count at its cap). A `400` says the
    /// request does not match the document.
    public static func unprocessable(_ message: String) -> AuthError {
        var error = AuthError(.validationFailed, message)
        error.status = 422
        return error
    }

    /// An invalid bearer token.
    public static func badJWT(_ detail: String) -> AuthError {
        AuthError(.badJWT, "invalid JWT: unable to parse or verify signature, \(detail)")
    }

    /// A rate limit hit, with the seconds to wait.
    public static func rateLimited(retryAfter: Int) -> AuthError {
        AuthError(.overRequestRateLimit, "Request rate limit reached", retryAfter: max(1, retryAfter))
    }

    /// Too many emails to one address or in total.
    public static func emailRateLimited(retryAfter: Int) -> AuthError {
        AuthError(.overEmailSendRateLimit, "email rate limit exceeded", retryAfter: max(1, retryAfter))
    }

    /// A resend asked for before the cooldown ran out.
    public static func sendCooldown(seconds: Int) -> AuthError {
        AuthError(
            .overEmailSendRateLimit, "For security purposes, you can only request this after \(seconds) seconds.",
            retryAfter: max(1, seconds))
    }

    /// An SMS code asked for before the cooldown ran out.
    public static func smsCooldown(seconds: Int) -> AuthError {
        AuthError(
            .overSMSSendRateLimit, "For security purposes, you can only request this after \(seconds) seconds.",
            retryAfter: max(1, seconds))
    }

    /// Too many SMS to one number or in total.
    public static func smsRateLimited(retryAfter: Int) -> AuthError {
        AuthError(.overSMSSendRateLimit, "SMS rate limit exceeded", retryAfter: max(1, retryAfter))
    }

    public static let phoneNotConfirmed = AuthError(.phoneNotConfirmed, "Phone not confirmed")
    public static let phoneExists = AuthError(.phoneExists, "A user with this phone number has already been registered")
    public static let phoneDisabled = AuthError(.phoneProviderDisabled, "Unsupported phone provider")
    public static let phoneInvalid = AuthError(.validationFailed, "Invalid phone number format (E.164 required)")
    /// An SMS provider named without its credentials (GoTrue's answer, 500).
    public static let smsProviderUnavailable = AuthError(.unexpectedFailure, "Unable to get SMS provider")
    /// `/sso` and its SAML paths while SAML is off (404, as GoTrue).
    public static var samlDisabled: AuthError {
        var error = AuthError(.samlProviderDisabled, "SAML 2.0 is disabled")
        error.status = 404
        return error
    }
    public static let smsSendFailed = AuthError(.smsSendFailed, "Error sending SMS: the SMS provider refused the message")

    /// An OAuth-style `invalid_request` error on `/token`.
    public static func oauthInvalidRequest(_ description: String) -> AuthError {
        AuthError(.validationFailed, description, oauthError: "invalid_request")
    }
}
