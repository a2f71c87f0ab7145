/// What an audit event records. The raw values follow GoTrue's audit actions where GoTrue has
/// one (`login`, `logout`, `user_signedup`, `user_modified`, …) and are stable: operators filter
/// on them.
public enum AuditAction: String, Sendable, CaseIterable, Codable {
    // Account
    case userSignedUp = "user_signedup"
    case login
    case loginFailed = "login_failed"
    case logout
    case codeSent = "code_sent"
    case codeFailed = "code_failed"
    case lockout
    case refreshTokenReuse = "refresh_token_reuse"
    case passwordChanged = "user_updated_password"
    case emailChanged = "email_changed"
    case phoneChanged = "phone_changed"
    case identityLinked = "identity_linked"
    case identityUnlinked = "identity_unlinked"
    case passkeyCreated = "passkey_created"
    case passkeyUpdated = "passkey_updated"
    case passkeyDeleted = "passkey_deleted"
    // Second factor
    case factorEnrolled = "factor_enrolled"
    case factorVerified = "factor_verified"
    case factorUnenrolled = "factor_unenrolled"
    case mfaVerified = "mfa_verified"
    // Device keys
    case deviceKeyRegistered = "device_key_registered"
    case deviceKeyRevoked = "device_key_revoked"
    // Operators
    case userCreated = "user_created"
    case userModified = "user_modified"
    case userDeleted = "user_deleted"
    case userInvited = "user_invited"
    case linkGenerated = "link_generated"
    case keyRotated = "key_rotated"
    case keyImported = "key_imported"
    case keyRetired = "key_retired"
    case serviceTokenIssued = "service_token_issued"
    // The OAuth server's clients
    case oauthClientCreated = "oauth_client_created"
    case oauthClientUpdated = "oauth_client_updated"
    case oauthClientDeleted = "oauth_client_deleted"
    case oauthClientSecretRegenerated = "oauth_client_secret_regenerated"
    // The OAuth server's grants
    case oauthConsentGranted = "oauth_consent_granted"
    case oauthConsentRevoked = "oauth_consent_revoked"
    /// A spent authorization code presented again: the session it made is ended.
    case oauthCodeReuse = "oauth_code_reuse"
    // Hooks
    case hookCalled = "hook_called"

    /// GoTrue's grouping of actions: `account`, `user` (linked identities), `token`,
    /// `factor`, `team` (operators), `key`, `oauth` (the OAuth server's clients and grants) or `hook`.
    public var logType: String {
        switch self {
        case .userSignedUp, .login, .loginFailed, .logout, .codeSent, .codeFailed, .lockout, .passwordChanged, .emailChanged,
            .phoneChanged:
            "account"
        case .identityLinked, .identityUnlinked, .passkeyCreated, .passkeyUpdated, .passkeyDeleted: "user"
        case .refreshTokenReuse, .oauthCodeReuse: "token"
        case .factorEnrolled, .factorVerified, .factorUnenrolled, .mfaVerified, .deviceKeyRegistered, .deviceKeyRevoked: "factor"
        case .userCreated, .userModified, .userDeleted, .userInvited, .linkGenerated: "team"
        case .keyRotated, .keyImported, .keyRetired, .serviceTokenIssued: "key"
        case .oauthClientCreated, .oauthClientUpdated, .oauthClientDeleted, .oauthClientSecretRegenerated, .oauthConsentGranted,
            .oauthConsentRevoked:
            "oauth"
        case .hookCalled: "hook"
        }
    }
}
