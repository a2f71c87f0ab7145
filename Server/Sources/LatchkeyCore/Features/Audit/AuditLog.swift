import Foundation
import LatchkeyAPI

/// Reading the audit log (`GET /admin/audit`, `latchkey audit`).
public struct AuditLog: Sendable {
    let store: any AuditLogStore

    public init(store: any AuditLogStore) {
        self.store = store
    }

    /// A page (1-based) of events, newest first, and the total; only those at or after `since`
    /// when it is set (`latchkey audit --follow`). An empty `userID` means every user; empty
    /// entries of `actions` are ignored.
    public func page(
        _ page: Int, perPage: Int, userID rawUser: String?, actions rawActions: [String], since: Date? = nil
    ) async throws -> (entries: [AuditLogEntry], total: Int) {
        var userID: UUID?
        if let rawUser, !rawUser.isEmpty {
            guard let id = UUID(text: rawUser) else { throw AuthError.validation("user_id must be a UUID") }
            userID = id
        }
        let actions = try rawActions.filter { !$0.isEmpty }.map { raw in
            guard let action = AuditAction(rawValue: raw) else {
                throw AuthError.validation(
                    "Unknown audit action \"\(raw.prefix(40))\"; known: \(AuditAction.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return action
        }
        let (events, total) = try await store.auditEvents(
            AuditQuery(userID: userID, actions: actions, since: since, offset: (page - 1) * perPage, limit: perPage))
        return (events.map(\.wire), total)
    }
}
