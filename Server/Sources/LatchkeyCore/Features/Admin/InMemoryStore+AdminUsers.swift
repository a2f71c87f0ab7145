import Foundation
import Synchronization

extension InMemoryStore: AdminUserStore {
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
        state.withLock { state in
            guard state.deleteUser(id) else { return false }
            state.events += events
            return true
        }
    }

    public func insertUsers(_ users: [(user: UserRecord, identity: IdentityRecord)]) async throws {
        try state.withLock { state in
            // All or none, as one transaction.
            var added = state
            for (user, identity) in users { try added.insert(user, identity: identity) }
            state = added
        }
    }
}
