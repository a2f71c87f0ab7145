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
    /// The code as sent on the wire, e.g. `invalid_credentials`.
    public let rawValue: String

    /// Creates a code from its wire value.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Creates a code from its wire value.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// Creates a code from a string literal, e.g. `"invalid_credentials"`.
    public init(stringLiteral value: String) { self.rawValue = value }

    public init(from decoder: any Decoder) throws {
        self.rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// The wire value, e.g. `invalid_credentials`.
    public var description: String { rawValue }
}

extension ErrorCode {
    // General
    /// The cause is unknown; the SDK also uses it for a 4xx answer it cannot read.
    public static let unknown: ErrorCode = "unknown"
    /// An unexpected failure on the server (HTTP 5xx).
    public static let unexpectedFailure: ErrorCode = "unexpected_failure"
    /// A request parameter is missing or malformed.
    public static let validationFailed: ErrorCode = "validation_failed"
    /// The request body is not valid JSON.
    public static let badJSON: ErrorCode = "bad_json"
    /// The server took too long to handle the request.
    public static let requestTimeout: ErrorCode = "request_timeout"
    /// The request body is too large (HTTP 413).
    public static let requestEntityTooLarge: ErrorCode = "request_entity_too_large"
    /// A conflicting request is in progress, e.g. concurrent refreshes of one session (HTTP 409).
    public static let conflict: ErrorCode = "conflict"
    /// The feature is turned off or not available on this server.
    public static let featureDisabled: ErrorCode = "feature_disabled"
    /// The resource or route does not exist (HTTP 404); not in GoTrue's list.
    public static let notFound: ErrorCode = "not_found"
    // Users
    /// Another user already has this email address.
    public static let emailExists: ErrorCode = "email_exists"
    /// Another user already has this phone number.
    public static let phoneExists: ErrorCode = "phone_exists"
    /// No user matches the request.
    public static let userNotFound: ErrorCode = "user_not_found"
    /// A user with this address is already registered ("User already registered").
    public static let userAlreadyExists: ErrorCode = "user_already_exists"
    /// The user is banned (see ``User/bannedUntil``).
    public static let userBanned: ErrorCode = "user_banned"
    /// The caller is not an admin, e.g. when setting `app_metadata`.
    public static let notAdmin: ErrorCode = "not_admin"
    /// The request needs an `Authorization` header and has none.
    public static let noAuthorization: ErrorCode = "no_authorization"
    /// The bearer token is malformed, invalid or expired.
    public static let badJWT: ErrorCode = "bad_jwt"
    /// The email address is malformed or not accepted.
    public static let emailAddressInvalid: ErrorCode = "email_address_invalid"
    /// The server is not allowed to send email to this address.
    public static let emailAddressNotAuthorized: ErrorCode = "email_address_not_authorized"
    /// The request needs an email address and has none.
    public static let emailAddressNotProvided: ErrorCode = "email_address_not_provided"
    // Providers
    /// New sign-ups are turned off on this server.
    public static let signupDisabled: ErrorCode = "signup_disabled"
    /// Signing up or in with an email address is turned off.
    public static let emailProviderDisabled: ErrorCode = "email_provider_disabled"
    /// Signing up or in with a phone number is turned off.
    public static let phoneProviderDisabled: ErrorCode = "phone_provider_disabled"
    /// The OAuth provider named in the request is turned off.
    public static let providerDisabled: ErrorCode = "provider_disabled"
    /// `/callback` without a `state` or a `code`.
    public static let badOAuthCallback: ErrorCode = "bad_oauth_callback"
    /// `/callback` with a `state` this server did not make, or one expired or already used.
    public static let badOAuthState: ErrorCode = "bad_oauth_state"
    /// A provider's sign-in carries an address the provider does not vouch for.
    public static let providerEmailNeedsVerification: ErrorCode = "provider_email_needs_verification"
    /// The provider's identity is already linked (to this user or another).
    public static let identityAlreadyExists: ErrorCode = "identity_already_exists"
    /// Passkeys are off (`GOTRUE_PASSKEY_ENABLED`).
    public static let passkeyDisabled: ErrorCode = "passkey_disabled"
    /// The user has `GOTRUE_PASSKEY_MAX_PASSKEYS_PER_USER` passkeys already.
    public static let tooManyPasskeys: ErrorCode = "too_many_passkeys"
    /// A passkey ceremony's challenge is unknown, another's, or already used.
    public static let webauthnChallengeNotFound: ErrorCode = "webauthn_challenge_not_found"
    /// A passkey ceremony's challenge expired.
    public static let webauthnChallengeExpired: ErrorCode = "webauthn_challenge_expired"
    /// A passkey's credential did not verify.
    public static let webauthnVerificationFailed: ErrorCode = "webauthn_verification_failed"
    /// The credential is registered already.
    public static let webauthnCredentialExists: ErrorCode = "webauthn_credential_exists"
    /// No identity of the user has that id.
    public static let identityNotFound: ErrorCode = "identity_not_found"
    /// A user's only identity cannot be unlinked.
    public static let singleIdentityNotDeletable: ErrorCode = "single_identity_not_deletable"
    /// Linking identities by hand is turned off (`GOTRUE_SECURITY_MANUAL_LINKING_ENABLED`).
    public static let manualLinkingDisabled: ErrorCode = "manual_linking_disabled"
    /// Anonymous sign-ins are turned off.
    public static let anonymousProviderDisabled: ErrorCode = "anonymous_provider_disabled"
    /// `/sso` while SAML single sign-on is off.
    public static let samlProviderDisabled: ErrorCode = "saml_provider_disabled"
    /// Sign-in by one-time code is refused; GoTrue also sends it for `create_user: false` and an unknown address.
    public static let otpDisabled: ErrorCode = "otp_disabled"
    // Sessions and tokens
    /// The session no longer exists (signed out or revoked).
    public static let sessionNotFound: ErrorCode = "session_not_found"
    /// The session has ended (timed out or inactive too long).
    public static let sessionExpired: ErrorCode = "session_expired"
    /// The refresh token is unknown ("Invalid Refresh Token: Refresh Token Not Found").
    public static let refreshTokenNotFound: ErrorCode = "refresh_token_not_found"
    /// The refresh token was already exchanged and counts as reused; the server revokes the session.
    public static let refreshTokenAlreadyUsed: ErrorCode = "refresh_token_already_used"
    /// No PKCE flow matches the auth code (unknown or already used).
    public static let flowStateNotFound: ErrorCode = "flow_state_not_found"
    /// The PKCE flow for the auth code has expired.
    public static let flowStateExpired: ErrorCode = "flow_state_expired"
    /// The PKCE code verifier is missing or does not match the challenge.
    public static let badCodeVerifier: ErrorCode = "bad_code_verifier"
    /// The token's audience (`aud`) is not the one the server expects.
    public static let unexpectedAudience: ErrorCode = "unexpected_audience"
    // Credentials and verification
    /// Wrong email, phone or password ("Invalid login credentials").
    public static let invalidCredentials: ErrorCode = "invalid_credentials"
    /// The email address must be confirmed before signing in ("Email not confirmed").
    public static let emailNotConfirmed: ErrorCode = "email_not_confirmed"
    /// The phone number must be confirmed before signing in.
    public static let phoneNotConfirmed: ErrorCode = "phone_not_confirmed"
    /// The one-time code or link is wrong or expired; GoTrue uses it for every refused code.
    public static let otpExpired: ErrorCode = "otp_expired"
    /// The password does not meet the policy; `weak_password` in the body says why (HTTP 422).
    public static let weakPassword: ErrorCode = "weak_password"
    /// The new password is the same as the current one.
    public static let samePassword: ErrorCode = "same_password"
    /// The `current_password` sent to change the password is wrong.
    public static let currentPasswordInvalid: ErrorCode = "current_password_invalid"
    /// Changing the password needs `current_password`.
    public static let currentPasswordRequired: ErrorCode = "current_password_required"
    /// Changing the password needs a reauthentication `nonce`.
    public static let reauthenticationNeeded: ErrorCode = "reauthentication_needed"
    /// The reauthentication `nonce` is wrong or expired.
    public static let reauthenticationNotValid: ErrorCode = "reauthentication_not_valid"
    /// Sign-in with a wallet (`grant_type=web3`) is turned off (HTTP 422).
    public static let web3ProviderDisabled: ErrorCode = "web3_provider_disabled"
    /// `grant_type=web3` with a chain other than `ethereum` or `solana` (HTTP 400).
    public static let web3UnsupportedChain: ErrorCode = "web3_unsupported_chain"
    /// The captcha token is missing or the captcha provider refused it (solve the captcha again).
    public static let captchaFailed: ErrorCode = "captcha_failed"
    // Rate limits
    /// Too many requests; wait before trying again (HTTP 429).
    public static let overRequestRateLimit: ErrorCode = "over_request_rate_limit"
    /// Too many emails sent; wait before asking for another (HTTP 429).
    public static let overEmailSendRateLimit: ErrorCode = "over_email_send_rate_limit"
    /// Too many SMS messages sent; wait before asking for another (HTTP 429).
    public static let overSMSSendRateLimit: ErrorCode = "over_sms_send_rate_limit"
    // Sending
    /// The SMS could not be sent.
    public static let smsSendFailed: ErrorCode = "sms_send_failed"
    /// The email could not be sent.
    public static let emailSendFailed: ErrorCode = "email_send_failed"
    // MFA
    /// The session's assurance level is too low; verify a second factor (`aal2`) first.
    public static let insufficientAAL: ErrorCode = "insufficient_aal"
    /// No such factor for this user (HTTP 404).
    public static let mfaFactorNotFound: ErrorCode = "mfa_factor_not_found"
    /// The user already has a factor of this name (HTTP 422).
    public static let mfaFactorNameConflict: ErrorCode = "mfa_factor_name_conflict"
    /// The user has as many factors as allowed (HTTP 422).
    public static let tooManyEnrolledMFAFactors: ErrorCode = "too_many_enrolled_mfa_factors"
    /// The challenge expired or does not exist: ask for a new one (HTTP 422).
    public static let mfaChallengeExpired: ErrorCode = "mfa_challenge_expired"
    /// The code is wrong (HTTP 422).
    public static let mfaVerificationFailed: ErrorCode = "mfa_verification_failed"
    /// The code came from another address than the challenge (HTTP 422).
    public static let mfaIPAddressMismatch: ErrorCode = "mfa_ip_address_mismatch"
    /// TOTP enrolment is switched off on this server (HTTP 422).
    public static let mfaTOTPEnrollNotEnabled: ErrorCode = "mfa_totp_enroll_not_enabled"
    /// TOTP verification is switched off on this server (HTTP 422).
    public static let mfaTOTPVerifyNotEnabled: ErrorCode = "mfa_totp_verify_not_enabled"
    /// Phone factors may not be enrolled on this server (HTTP 422).
    public static let mfaPhoneEnrollNotEnabled: ErrorCode = "mfa_phone_enroll_not_enabled"
    /// Phone factors may not be challenged or verified on this server (HTTP 422).
    public static let mfaPhoneVerifyNotEnabled: ErrorCode = "mfa_phone_verify_not_enabled"
    /// WebAuthn factors may not be enrolled on this server (HTTP 422).
    public static let mfaWebAuthnEnrollNotEnabled: ErrorCode = "mfa_webauthn_enroll_not_enabled"
    /// WebAuthn factors may not be challenged or verified on this server (HTTP 422).
    public static let mfaWebAuthnVerifyNotEnabled: ErrorCode = "mfa_webauthn_verify_not_enabled"
    /// No OAuth client with this id, or it was deleted (HTTP 404).
    public static let oauthClientNotFound: ErrorCode = "oauth_client_not_found"
    /// The OAuth server takes no dynamic client registrations (HTTP 403).
    public static let oauthDynamicClientRegistrationDisabled: ErrorCode = "oauth_dynamic_client_registration_disabled"
    /// No pending authorization request with this id for this user, or it expired (HTTP 404).
    public static let oauthAuthorizationNotFound: ErrorCode = "oauth_authorization_not_found"
    /// The user has granted this OAuth client nothing, or revoked it (HTTP 404).
    public static let oauthConsentNotFound: ErrorCode = "oauth_consent_not_found"
    /// The user has a verified phone factor for this number already (HTTP 422).
    public static let mfaVerifiedFactorExists: ErrorCode = "mfa_verified_factor_exists"
}

extension ErrorCode {
    // Latchkey extensions
    /// A device-key assertion named a key the server does not have (revoked, or removed by a
    /// password change or a global sign-out): enrol the device again. Sent with the OAuth error
    /// `invalid_grant` and in the `x-sb-error-code` header.
    public static let deviceKeyNotFound: ErrorCode = "device_key_not_found"
    /// A token an OAuth client holds for a user (its session is the client's) on a route its
    /// scopes do not open: the user's own account API and the operator's (HTTP 403).
    public static let insufficientScope: ErrorCode = "insufficient_scope"
}

extension ErrorCode {
    /// The PIN was wrong; `attempts_remaining` says how many tries the vault survives (HTTP 400).
    public static let invalidPIN: ErrorCode = "invalid_pin"
    /// Too many wrong PINs destroyed the vault's server share: recover or re-create it (HTTP 423).
    public static let vaultLocked: ErrorCode = "vault_locked"
}

extension ErrorCode {
    // Auth hooks (`GOTRUE_HOOK_*`)
    /// A verification-attempt hook refused the second factor; the user's sessions are ended (HTTP 403).
    public static let mfaVerificationRejected: ErrorCode = "mfa_verification_rejected"
    /// The operator's hook did not answer in time (HTTP 422).
    public static let hookTimeout: ErrorCode = "hook_timeout"
    /// The operator's hook could not be reached, however often it was tried (HTTP 422).
    public static let hookTimeoutAfterRetry: ErrorCode = "hook_timeout_after_retry"
    /// The operator's hook answered more than the server reads (HTTP 422).
    public static let hookPayloadOverSizeLimit: ErrorCode = "hook_payload_over_size_limit"
    /// The operator's hook answered something other than JSON (HTTP 400).
    public static let hookPayloadInvalidContentType: ErrorCode = "hook_payload_invalid_content_type"
    /// The operator's hook refused the request with a message of its own; the status is the
    /// hook's `http_code` (Latchkey extension: GoTrue sends these without a code).
    public static let hookRejected: ErrorCode = "hook_rejected"
}
