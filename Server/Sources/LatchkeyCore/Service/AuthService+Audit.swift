import Foundation
import LatchkeyAPI

extension AuthService {
    /// An event about the account `userID` (known to people as `name`), made now. The actor is
    /// the operator bound in ``AuditContext`` when there is one, else the account itself; the
    /// address is `client`'s, else the context's.
    func auditEvent(
        _ action: AuditAction, userID: UUID?, name: String?, details: [String: JSONValue] = [:], client: ClientInfo? = nil
    ) -> AuditEvent {
        AuditEvents(time: time).event(action, userID: userID, name: name, details: details, client: client)
    }

    /// An event about `user`.
    func auditEvent(_ action: AuditAction, user: UserRecord, details: [String: JSONValue] = [:], client: ClientInfo? = nil) -> AuditEvent {
        auditEvent(action, userID: user.id, name: user.email ?? user.phone.map { "+" + $0 }, details: details, client: client)
    }
}
