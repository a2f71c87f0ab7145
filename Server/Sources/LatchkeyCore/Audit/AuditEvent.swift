import Foundation
import LatchkeyAPI

/// One security event, stored in the same transaction as the change it records.
///
/// Never carries a secret: no password, code, link, token or key material goes into `details`.
public struct AuditEvent: Sendable, Equatable {
    public var id: UUID
    public var action: AuditAction
    /// The user who acted, when a user did.
    public var actorID: UUID?
    /// Who acted, for people: the user's email or phone, `service_role` for an admin token, or
    /// `cli:<name>` for an operator at the command line.
    public var actorName: String
    /// The account the event is about, when there is one (kept after the account is deleted).
    public var userID: UUID?
    public var ip: String?
    public var userAgent: String?
    /// What else matters: the sign-in method, why a code failed, which fields an operator changed.
    public var details: [String: JSONValue]
    public var createdAt: Date

    public init(
        id: UUID = UUID(), action: AuditAction, actorID: UUID?, actorName: String, userID: UUID?, ip: String?, userAgent: String?,
        details: [String: JSONValue] = [:], createdAt: Date
    ) {
        self.id = id
        self.action = action
        self.actorID = actorID
        self.actorName = actorName
        self.userID = userID
        self.ip = ip
        self.userAgent = userAgent
        self.details = details
        self.createdAt = createdAt
    }

    /// The event as `GET /admin/audit` shows it: GoTrue's shape (`payload` with `actor_id`,
    /// `actor_username`, `action`, `log_type`, `traits`) plus the user and the user agent.
    public var wire: AuditLogEntry {
        AuditLogEntry(
            id: id.lowercasedString,
            payload: AuditLogEntry.Payload(
                actorID: actorID?.lowercasedString ?? "", actorUsername: actorName, action: action.rawValue,
                logType: action.logType, traits: details),
            userID: userID?.lowercasedString, ipAddress: ip ?? "", userAgent: userAgent, createdAt: createdAt)
    }
}
