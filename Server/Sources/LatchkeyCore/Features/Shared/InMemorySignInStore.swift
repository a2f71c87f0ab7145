import Foundation
import Synchronization

/// ``PasswordSignInStore`` and ``AuthCodeExchangeStore`` in memory, with the SQL stores'
/// atomicity: every call is one step under a lock, a session is stored only while its user is at
/// the version it was read at, and a flow state is spent once. Tests add users and flow states
/// with ``add(_:)``; events are recorded in `audit`. For unit tests, held to the SQL stores'
/// behaviour by the contract suites.
public final class InMemorySignInStore: PasswordSignInStore, AuthCodeExchangeStore, AccountReading {
    private struct State {
        var users: [UUID: UserRecord] = [:]
        var sessions: [UUID: SessionRecord] = [:]
        var flows: [FlowStateRecord] = []
    }

    private let state = Mutex(State())
    /// Where the events that go with each change are recorded.
    public let audit: InMemoryAuditLogStore

    public init(audit: InMemoryAuditLogStore = InMemoryAuditLogStore()) {
        self.audit = audit
    }

    /// Adds a user, as sign-up would.
    public func add(_ user: UserRecord) { state.withLock { $0.users[user.id] = user } }
    /// Adds a flow state, as a link opened in a browser would.
    public func add(_ flow: FlowStateRecord) { state.withLock { $0.flows.append(flow) } }
    /// Replaces a stored user as another request would: at its version, which moves on.
    public func change(_ id: UUID, _ edit: (inout UserRecord) -> Void) {
        state.withLock { state in
            guard var user = state.users[id] else { return }
            edit(&user)
            user.version += 1
            state.users[id] = user
        }
    }
    /// The id of a stored user (any one): for tests that land a write on the only user.
    public var anyUserID: UUID? { state.withLock { $0.users.keys.first } }
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

    public func consumeFlowState(authCodeHash: String, now: Date) async throws -> ConsumedFlow? {
        state.withLock { state in
            guard let index = state.flows.firstIndex(where: { $0.authCodeHash == authCodeHash && $0.consumedAt == nil }) else { return nil }
            state.flows[index].consumedAt = now
            return ConsumedFlow(flow: state.flows[index], user: state.users[state.flows[index].userID])
        }
    }

    public func account(userID: UUID, sessionID: UUID?) async throws -> AccountRecords {
        state.withLock { state in
            AccountRecords(user: state.users[userID], session: sessionID.flatMap { state.sessions[$0] }, identities: [], factors: [])
        }
    }

    public func appendAudit(_ events: [AuditEvent]) async throws { try await audit.appendAudit(events) }
}
