/// What a webhook announces, from the audit event of the change: the Standard Webhooks `type`.
public enum WebhookEventType: String, Sendable, CaseIterable, Codable {
    case userCreated = "user.created"
    case userSignedIn = "user.signed_in"
    case userEmailChanged = "user.email_changed"
    case userPhoneChanged = "user.phone_changed"
    case userDeleted = "user.deleted"
    case factorAdded = "factor.added"
    case factorRemoved = "factor.removed"

    /// The event an audit action announces, if any: a sign-up, an operator's creation and an
    /// invitation create a user; a second factor counts once it is verified.
    public init?(_ action: AuditAction) {
        switch action {
        case .userSignedUp, .userCreated, .userInvited: self = .userCreated
        case .login: self = .userSignedIn
        case .emailChanged: self = .userEmailChanged
        case .phoneChanged: self = .userPhoneChanged
        case .userDeleted: self = .userDeleted
        case .factorVerified: self = .factorAdded
        case .factorUnenrolled: self = .factorRemoved
        default: return nil
        }
    }
}
