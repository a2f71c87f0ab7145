import Foundation
import Synchronization

extension InMemoryStore: AnonymousUserStore {
    public func createAnonymousUser(_ user: UserRecord, session: SessionRecord, audit events: [AuditEvent]) async throws {
        try state.withLock { state in
            try state.insert(user, identity: nil)
            state.sessions[session.id] = session
            state.events += events
        }
    }

    public func anonymousUsers(createdBefore date: Date, limit: Int) async throws -> [UUID] {
        state.withLock { state in
            state.users.values.filter { $0.isAnonymous && $0.createdAt < date }.sorted { $0.createdAt < $1.createdAt }.prefix(limit)
                .map(\.id)
        }
    }

    public func deleteAnonymousUsers(_ ids: [UUID], createdBefore date: Date, audit events: [UUID: AuditEvent]) async throws -> [UUID] {
        state.withLock { state in
            let deleted = ids.filter { id in
                guard let user = state.users[id], user.isAnonymous, user.createdAt < date else { return false }
                return state.deleteUser(id)
            }
            state.events += deleted.compactMap { events[$0] }
            return deleted
        }
    }
}
