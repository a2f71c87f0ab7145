import Foundation
import LatchkeyAPI

/// What a webhook announces, from the audit event of the change: the Standard Webhooks `type`.
public enum WebhookEventType: String, Sendable, CaseIterable, Codable {
    case userCreated = "user.created"
    case userSignedIn = "user.signed_in"
    case userEmailChanged = "user.email_changed"
    case userPhoneChanged = "user.phone_changed"
    case userDeleted = "user.deleted"
    case factorAdded = "factor.added"
    case factorRemoved = "factor.removed"
    case oauthConsentGranted = "oauth.consent_granted"
    case oauthConsentRevoked = "oauth.consent_revoked"

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
        case .oauthConsentGranted: self = .oauthConsentGranted
        case .oauthConsentRevoked: self = .oauthConsentRevoked
        default: return nil
        }
    }
}

extension WebhookEventType {
    /// The Standard Webhooks body announcing `event`: `type`, `timestamp` and `data` (the audit
    /// event: who, what, from where; never a secret, as audit events carry none). Every store
    /// queues this one.
    public func payload(announcing event: AuditEvent) -> String {
        var data: [String: JSONValue] = [
            "event_id": .string(event.id.lowercasedString), "action": .string(event.action.rawValue),
            "actor": .string(event.actorName), "details": .object(event.details),
        ]
        if let user = event.userID { data["user_id"] = .string(user.lowercasedString) }
        if let ip = event.ip { data["ip"] = .string(ip) }
        let body: [String: JSONValue] = [
            "type": .string(rawValue), "timestamp": .string(WireJSON.formatDate(event.createdAt)), "data": .object(data),
        ]
        return JSONText.encode(body) ?? "{}"
    }
}
