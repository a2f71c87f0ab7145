import Foundation
import Synchronization

/// ``PasswordSignInStore`` in memory, with the SQL stores' atomicity: every call is one step
/// under a lock, and a session is stored only while its user is at the version it was read at.
/// Tests add users with ``add(_:)``; events are recorded in `audit`. For unit tests, held to the
/// SQL stores' behaviour by the contract suite.
public final class InMemoryPasswordSignInStore: PasswordSignInStore, AccountReading {
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

    /// Adds a user, as sign-up would.
    public func add(_ user: UserRecord) { state.withLock { $0.users[user.id] = user } }
    /// Replaces a stored user as another request would: at its version, which moves on.
    public func change(_ id: UUID, _ edit: (inout UserRecord) -> Void) {
        state.withLock { state in
            guard var user = state.users[id] else { return }
            edit(&user)
            user.version += 1
            state.users[id] = user
        }
    }
    /// The sessions of a user, as stored now.
    public func sessions(userID: UUID) -> [SessionRecord] { state.withLock { $0.sessions.values.filter { $0.userID == userID } } }

    public func user(id: UUID) async throws -> UserRecord? { state.withLock { $0.users[id] } }

    public func user(email: String) async throws -> UserRecord? {
        state.withLock { $0.users.values.first { $0.email == email } }
    }

    public func user(phone: String) async throws -> UserRecord? {
        state.withLock { $0.users.values.first { $0.phone == phone } }
    }

    public func createSession(_ session: SessionRecord, user: UserRecord, audit events: [AuditEvent]) async throws {
        try state.withLock { state in
            guard let stored = state.users[user.id] else { throw StoreError.notFound("user \(user.id)") }
            guard stored.version == user.version else {
                throw StoreError.conflict("user \(user.id) changed since it was read at version \(user.version)")
            }
            var written = user
            written.version += 1
            state.users[user.id] = written
            state.sessions[session.id] = session
        }
        try await audit.appendAudit(events)
    }

    public func account(userID: UUID, sessionID: UUID?) async throws -> AccountRecords {
        state.withLock { state in
            AccountRecords(user: state.users[userID], session: sessionID.flatMap { state.sessions[$0] }, identities: [], factors: [])
        }
    }

    public func appendAudit(_ events: [AuditEvent]) async throws { try await audit.appendAudit(events) }
}
