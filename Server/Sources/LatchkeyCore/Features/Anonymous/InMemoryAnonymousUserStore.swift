import Foundation
import Synchronization

/// ``AnonymousUserStore`` in memory, with the SQL stores' atomicity: every call is one step under
/// a lock, and a deletion checks that each user is still anonymous. Records its events in
/// `audit`; for unit tests, held to the SQL stores' behaviour by the contract suite.
public final class InMemoryAnonymousUserStore: AnonymousUserStore, AccountReading {
    private struct State {
        var users: [UUID: UserRecord] = [:]
        var sessions: [UUID: SessionRecord] = [:]
    }

    private let state = Mutex(State())
    /// Where the events that go with each change are recorded.
    public let audit: InMemoryAuditLogStore

    public init(audit: InMemoryAuditLogStore = InMemoryAuditLogStore()) {
        self.audit = audit
    }

    /// Changes a stored user as another request would (adding an address makes it permanent).
    public func change(_ id: UUID, _ edit: (inout UserRecord) -> Void) {
        state.withLock { state in
            guard var user = state.users[id] else { return }
            edit(&user)
            user.version += 1
            state.users[id] = user
        }
    }
    /// The user with this id, as stored now.
    public func user(id: UUID) -> UserRecord? { state.withLock { $0.users[id] } }
    /// How many sessions are stored.
    public var sessionCount: Int { state.withLock { $0.sessions.count } }

    public func createAnonymousUser(_ user: UserRecord, session: SessionRecord, audit events: [AuditEvent]) async throws {
        try state.withLock { state in
            guard state.users[user.id] == nil else { throw StoreError.duplicate("user \(user.id)") }
            state.users[user.id] = user
            state.sessions[session.id] = session
        }
        try await audit.appendAudit(events)
    }

    public func anonymousUsers(createdBefore date: Date, limit: Int) async throws -> [UUID] {
        state.withLock { state in
            state.users.values.filter { $0.isAnonymous && $0.createdAt < date }.sorted { $0.createdAt < $1.createdAt }.prefix(limit)
                .map(\.id)
        }
    }

    public func deleteAnonymousUsers(_ ids: [UUID], createdBefore date: Date, audit events: [UUID: AuditEvent]) async throws -> [UUID] {
        let deleted = state.withLock { state in
            ids.filter { id in
                guard let user = state.users[id], user.isAnonymous, user.createdAt < date else { return false }
                state.users[id] = nil
                state.sessions = state.sessions.filter { $0.value.userID != id }
                return true
            }
        }
        try await audit.appendAudit(deleted.compactMap { events[$0] })
        return deleted
    }

    public func account(userID: UUID, sessionID: UUID?) async throws -> AccountRecords {
        state.withLock { state in
            AccountRecords(user: state.users[userID], session: sessionID.flatMap { state.sessions[$0] }, identities: [], factors: [])
        }
    }
}
