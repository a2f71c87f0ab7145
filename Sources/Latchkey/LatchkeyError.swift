import Foundation
@_exported import LatchkeyAPI

/// The one error type the SDK throws: a stable ``code`` (the server's codes plus a few of the
/// SDK's own), a readable message, and what the app needs to react.
///
/// ```swift
/// do {
///     try await auth.signIn(email: email, password: password)
/// } catch let error as LatchkeyError where error.isInvalidCredentials {
///     showWrongPassword()
/// }
/// ```
public struct LatchkeyError: Error, Sendable, Equatable, LocalizedError, CustomStringConvertible {
    /// The stable code, e.g. `invalid_credentials`. An open set: unknown codes still decode.
    public var code: ErrorCode
    /// A message from the server or the SDK, fit for logs and, usually, for people.
    public var message: String
    /// The HTTP status, when the error came from the server.
    public var status: Int?
    /// Seconds to wait before trying again, for rate limits.
    public var retryAfter: Int?
    /// Why a password was refused, for ``isWeakPassword``.
    public var weakPasswordReasons: [WeakPassword.Reason]
    /// Why a one-time code was refused. A server that does not say (GoTrue) is read by the code's
    /// expiry: before it, the code was wrong; after it, it expired.
    public var codeRefusal: CodeRefusal?
    /// Wrong submissions the code still survives, when the server says.
    public var attemptsRemaining: Int?
    /// After a wrong code: the state to submit the next try from.
    public var retryState: CodeRequired?

    /// Creates an error. The SDK makes these itself; apps mostly need one for test doubles.
    public init(
        code: ErrorCode, message: String, status: Int? = nil, retryAfter: Int? = nil,
        weakPasswordReasons: [WeakPassword.Reason] = [], codeRefusal: CodeRefusal? = nil, attemptsRemaining: Int? = nil,
        retryState: CodeRequired? = nil
    ) {
        self.code = code
        self.message = message
        self.status = status
        self.retryAfter = retryAfter
        self.weakPasswordReasons = weakPasswordReasons
        self.codeRefusal = codeRefusal
        self.attemptsRemaining = attemptsRemaining
        self.retryState = retryState
    }

    /// The ``message``, for `LocalizedError`.
    public var errorDescription: String? { message }
    /// The code and the message, e.g. `invalid_credentials: Invalid login credentials`.
    public var description: String { "\(code): \(message)" }

    /// The address is taken (sign-up with an existing account).
    public var isUserAlreadyExists: Bool { code == .userAlreadyExists || code == .emailExists }
    /// No account has this address (sign-in by code with ``CodeIntent/signIn``).
    public var isUserNotFound: Bool { code == .userNotFound }
    /// The address is not a valid email address.
    public var isInvalidUsername: Bool { code == .emailAddressInvalid || code == .emailAddressNotProvided }
    /// The code was wrong and may be tried again: true exactly when ``retryState`` is there to try
    /// from. Never true together with ``isCodeExpired`` or ``isCodeAttemptsExhausted``.
    ///
    /// ```swift
    /// } catch let error as LatchkeyError where error.isInvalidCode {
    ///     if let retry = error.retryState { state = retry }
    /// }
    /// ```
    public var isInvalidCode: Bool { code == .otpExpired && retryState != nil }
    /// Too many wrong codes used the code up: ask for a new one.
    public var isCodeAttemptsExhausted: Bool { code == .otpExpired && codeRefusal == .exhausted }
    /// The code or link has expired (or is unknown): ask for a new one. Neither
    /// ``isInvalidCode`` nor ``isCodeAttemptsExhausted``.
    public var isCodeExpired: Bool { code == .otpExpired && !isInvalidCode && !isCodeAttemptsExhausted }
    /// Wrong email or password.
    public var isInvalidCredentials: Bool { code == .invalidCredentials }
    /// The email address is not confirmed yet.
    public var isEmailNotConfirmed: Bool { code == .emailNotConfirmed }
    /// The password was refused; ``weakPasswordReasons`` says why.
    public var isWeakPassword: Bool { code == .weakPassword }
    /// Too many requests; wait ``retryAfter`` seconds.
    public var isRateLimited: Bool {
        code == .overRequestRateLimit || code == .overEmailSendRateLimit || code == .overSMSSendRateLimit
    }
    /// There is no signed-in session (never was, signed out, or ended by the server).
    public var isSessionMissing: Bool { code == .sessionMissing }
    /// The server could not be reached; the session, if any, is kept.
    public var isNetworkError: Bool { code == .networkError }
    /// The phone number is not confirmed yet.
    public var isPhoneNotConfirmed: Bool { code == .phoneNotConfirmed }
    /// The phone number is not E.164 (`+15551234567`): the SDK checks before it sends.
    public var isInvalidPhoneNumber: Bool { code == .phoneNumberInvalid }
    /// The SMS provider refused the message; no code was sent.
    public var isSMSSendFailed: Bool { code == .smsSendFailed }
    /// The change needs a code from ``AuthClient/reauthenticate()`` as `nonce`.
    public var isReauthenticationNeeded: Bool { code == .reauthenticationNeeded || code == .reauthenticationNotValid }
    /// An email-change link was confirmed from one address; the other address must confirm too.
    public var isEmailChangePending: Bool { code == .emailChangePending }
    /// This device has no device key the server accepts (never enrolled, lost in a restore or a
    /// change of biometrics, or revoked): sign in another way, then enrol again.
    public var isDeviceKeyEnrollmentNeeded: Bool { code == .deviceKeyMissing || code == .deviceKeyNotFound }
    /// The user dismissed a biometric or passcode prompt.
    public var isUserCancelled: Bool { code == .userCancelled }
    /// This device holds no credential of the kind asked for: no passkey for the app (the system
    /// showed no sheet), or no device key of the user's. Nothing was shown to the user.
    public var isNoCredentialOnDevice: Bool { code == .noCredentialOnDevice }
    /// There is no key vault (SwiftBasicPay's `userNotFound`).
    public var isVaultNotFound: Bool { code == .vaultNotFound }
    /// The PIN was wrong (SwiftBasicPay's `invalidPin`); ``attemptsRemaining`` says how many
    /// tries a server-assisted vault survives.
    public var isInvalidPIN: Bool { code == .invalidPIN }
    /// Too many wrong PINs destroyed the vault: recover the key another way and sign up again.
    public var isVaultLocked: Bool { code == .vaultLocked }
    /// The PIN policy refused a new PIN.
    public var isWeakPIN: Bool { code == .weakPIN }
    /// The session is not ``AAL/aal2`` and the call needs it (enrolling another factor or
    /// removing a verified one after a one-factor sign-in): verify a code first with
    /// ``MFA/challengeAndVerify(factorID:code:)``.
    public var isInsufficientAAL: Bool { code == .insufficientAAL }
    /// The authenticator code was wrong; ask again (after many tries the server rate-limits,
    /// ``isRateLimited``).
    public var isMFAVerificationFailed: Bool { code == .mfaVerificationFailed }
    /// The MFA challenge expired before a code was verified; create another.
    public var isMFAChallengeExpired: Bool { code == .mfaChallengeExpired }
    /// The user has no factor with this id (removed, or never theirs).
    public var isMFAFactorNotFound: Bool { code == .mfaFactorNotFound }
    /// Another of the user's factors has this friendly name.
    public var isMFAFactorNameConflict: Bool { code == .mfaFactorNameConflict }
    /// The user has as many factors as the server allows; remove one first.
    public var isTooManyMFAFactors: Bool { code == .tooManyEnrolledMFAFactors }
    /// A verified phone factor has this number already.
    public var isMFAVerifiedFactorExists: Bool { code == .mfaVerifiedFactorExists }
    /// The server does not allow phone factors (their enrolment, or their challenges and codes).
    public var isMFAPhoneDisabled: Bool { code == .mfaPhoneEnrollNotEnabled || code == .mfaPhoneVerifyNotEnabled }
    /// The server does not allow WebAuthn factors (their enrolment, or their challenges).
    public var isMFAWebAuthnDisabled: Bool { code == .mfaWebAuthnEnrollNotEnabled || code == .mfaWebAuthnVerifyNotEnabled }
    /// The key is registered already (to another factor, or as a passkey of another account).
    public var isWebAuthnCredentialExists: Bool { code == .webauthnCredentialExists }
    /// No second factor is waiting: the session is not halfway (``AuthModel/Phase/needsSecondFactor(_:)``),
    /// or nothing was challenged yet.
    public var isNoSecondFactorPending: Bool { code == .noSecondFactorPending }
    /// No pending OAuth authorization request with this id for this user: expired, answered, or
    /// another user's (``OAuthConsent``).
    public var isOAuthAuthorizationNotFound: Bool { code == .oauthAuthorizationNotFound }
    /// The user has no grant to revoke for this client.
    public var isOAuthConsentNotFound: Bool { code == .oauthConsentNotFound }
    /// The token was issued to an OAuth client and may not be used on this route.
    public var isInsufficientScope: Bool { code == .insufficientScope }
    /// The embedded signer has no key yet, or not on this device (Openfort's
    /// `embeddedSignerNotConfigured`).
    public var isSignerNotConfigured: Bool { code == .signerNotConfigured }
}

extension ErrorCode {
    /// SDK: no signed-in session.
    public static let sessionMissing: ErrorCode = "session_missing"
    /// SDK: the server could not be reached or the connection failed.
    public static let networkError: ErrorCode = "network_error"
    /// SDK: the session store cannot be read now (for example, a locked keychain); try later.
    public static let storageUnavailable: ErrorCode = "storage_unavailable"
    /// SDK: the server answered something the SDK could not read.
    public static let invalidResponse: ErrorCode = "invalid_response"
    /// SDK: a deep link carried nothing the SDK understands.
    public static let invalidLink: ErrorCode = "invalid_link"
    /// SDK: an email-change link confirmed one address; the other must confirm too.
    public static let emailChangePending: ErrorCode = "email_change_pending"
    /// SDK: this device has no (usable) device key; enrol again.
    public static let deviceKeyMissing: ErrorCode = "device_key_missing"
    /// SDK: the device key cannot be created or used right now (no Secure Enclave, biometrics
    /// locked out).
    public static let deviceKeyUnavailable: ErrorCode = "device_key_unavailable"
    /// SDK: the user dismissed a biometric or passcode prompt.
    public static let userCancelled: ErrorCode = "user_cancelled"
    /// SDK: this device holds no passkey (or device key) to sign in with; nothing was shown.
    public static let noCredentialOnDevice: ErrorCode = "no_credential_on_device"
    /// SDK: there is no key vault on this device.
    public static let vaultNotFound: ErrorCode = "vault_not_found"
    /// SDK: the stored vault or backup is damaged or cannot be opened with what was given.
    public static let vaultCorrupted: ErrorCode = "vault_corrupted"
    /// SDK: a new PIN does not meet the ``PINPolicy``.
    public static let weakPIN: ErrorCode = "weak_pin"
    /// SDK: a local vault makes the user wait after wrong PINs; see ``LatchkeyError/retryAfter``.
    public static let pinDelayed: ErrorCode = "pin_delayed"
    /// SDK: the phone number is not E.164; nothing was sent.
    public static let phoneNumberInvalid: ErrorCode = "phone_number_invalid"
    /// SDK: a ``CodeRequired`` decoded by the app was submitted before ``AuthClient/resume(_:)``.
    public static let codeStateDetached: ErrorCode = "code_state_detached"
    /// SDK: a second-factor call came with no second factor waiting for it.
    public static let noSecondFactorPending: ErrorCode = "no_second_factor_pending"
    /// SDK: the embedded signer is not configured (or not on this device).
    public static let signerNotConfigured: ErrorCode = "signer_not_configured"
    /// SDK: the recovery password does not open the signer backup.
    public static let invalidRecoveryPassword: ErrorCode = "invalid_recovery_password"
}

extension LatchkeyError {
    static let sessionMissing = LatchkeyError(code: .sessionMissing, message: "Auth session missing")

    /// `raw` in E.164 with its `+`, or `phone_number_invalid` before anything is sent.
    static func phoneNumber(_ raw: String) throws -> String {
        guard let number = E164.normalized(raw) else {
            throw LatchkeyError(code: .phoneNumberInvalid, message: "\(raw) is not a phone number in E.164 form, e.g. +15551234567")
        }
        return number
    }

    static func network(_ error: any Error) -> LatchkeyError {
        LatchkeyError(code: .networkError, message: "The server could not be reached: \(error.localizedDescription)")
    }

    /// Whether the server said the session is dead (the only codes that sign the user out).
    var endsSession: Bool {
        [.sessionNotFound, .sessionExpired, .refreshTokenNotFound, .refreshTokenAlreadyUsed].contains(code)
    }
}
