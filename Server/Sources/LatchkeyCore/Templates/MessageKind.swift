/// Every message Latchkey sends, each rendered from its own templates.
public enum MessageKind: String, Sendable, CaseIterable {
    /// Confirms a new address: sign-up, or a first code sign-in.
    case confirmation
    /// Signs an existing user in.
    case magicLink = "magic_link"
    /// Lets the user choose a new password.
    case recovery
    /// Asks the new address to confirm an email change.
    case emailChange = "email_change"
    /// Asks the current address to confirm an email change (secure email change).
    case emailChangeCurrent = "email_change_current"
    /// A code that confirms a sensitive change (`GET /reauthenticate`).
    case reauthentication
    /// Invites someone to the app.
    case invite
    /// Tells the user their password changed.
    case passwordChanged = "password_changed"
    /// Tells the user their email address changed.
    case emailChanged = "email_changed"
    /// Tells the user a second factor was added to their account.
    case factorEnrolled = "mfa_factor_enrolled"
    /// Tells the user a second factor was removed from their account.
    case factorUnenrolled = "mfa_factor_unenrolled"
    /// Tells the user a recovery code was used in place of their second factor.
    case recoveryCodeUsed = "recovery_code_used"
    /// Tells the user a provider's identity was linked to their account (a new way in).
    case identityLinked = "identity_linked"
    /// Tells the user a provider's identity was unlinked from their account.
    case identityUnlinked = "identity_unlinked"
    /// Tells the owner of an address that someone tried to sign up with it again.
    case existingAccount = "existing_account"
    /// A code by SMS (text part only).
    case sms
    /// A phone factor's code by SMS or WhatsApp (text part only; GoTrue's `GOTRUE_MFA_PHONE_TEMPLATE`).
    case mfaSMS = "mfa_sms"

    /// The `type` its link carries to `GET /verify`.
    /// GoTrue's `email_action_type` for the `send-email` hook.
    public var hookActionType: String {
        switch self {
        case .confirmation: "signup"
        case .magicLink: "magiclink"
        case .recovery: "recovery"
        case .invite: "invite"
        case .emailChange, .emailChangeCurrent: "email_change"
        case .reauthentication: "reauthentication"
        case .passwordChanged: "password_changed_notification"
        case .emailChanged: "email_changed_notification"
        case .factorEnrolled: "mfa_factor_enrolled_notification"
        case .factorUnenrolled: "mfa_factor_unenrolled_notification"
        case .recoveryCodeUsed: "recovery_code_used_notification"
        case .identityLinked: "identity_linked_notification"
        case .identityUnlinked: "identity_unlinked_notification"
        case .existingAccount: "existing_account_notification"
        case .sms: "sms"
        case .mfaSMS: "mfa"
        }
    }

    public var verificationType: String {
        switch self {
        case .confirmation: "signup"
        case .magicLink: "magiclink"
        case .emailChange, .emailChangeCurrent: "email_change"
        case .invite: "invite"
        case .recovery: "recovery"
        case .reauthentication, .passwordChanged, .emailChanged, .existingAccount, .sms, .mfaSMS, .factorEnrolled, .factorUnenrolled,
            .recoveryCodeUsed,
            .identityLinked, .identityUnlinked:
            "email"
        }
    }

    /// Whether this kind is an SMS (one text template, no subject or HTML).
    public var isSMS: Bool { self == .sms || self == .mfaSMS }
}
