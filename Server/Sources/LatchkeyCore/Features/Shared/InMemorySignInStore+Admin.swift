import Foundation
import Synchronization

extension InMemorySignInStore: AdminUserStore {
    public func listUsers(emailContains: String?, anonymous: Bool?, offset: Int, limit: Int) async throws -> (
        users: [UserRecord], total: Int
    ) {
        state.withLock { state in
            let matching = state.users.values.filter { user in
                (emailContains.map { user.email?.contains($0.lowercased()) ?? false } ?? true)
                    && (anonymous.map { user.isAnonymous == $0 } ?? true)
            }.sorted { ($0.createdAt, $0.id.uuidString) > ($1.createdAt, $1.id.uuidString) }
            return (Array(matching.dropFirst(offset).prefix(limit)), matching.count)
        }
    }

    public func deleteUser(id: UUID, audit events: [AuditEvent]) async throws -> Bool {
        let deleted = state.withLock { state in
            guard state.users.removeValue(forKey: id) != nil else { return false }
            state.sessions = state.sessions.filter { $0.value.userID != id }
            state.tokens.removeAll { $0.userID == id }
            state.factors.removeAll { $0.userID == id }
            return true
        }
        if deleted { try await audit.appendAudit(events) }
        return deleted
    }

    public func insertUsers(_ users: [(user: UserRecord, identity: IdentityRecord)]) async throws {
        try state.withLock { state in
            var added = state
            for (user, _) in users {
                try added.checkNew(user)
                added.users[user.id] = user
            }
            state = added
        }
    }
}
