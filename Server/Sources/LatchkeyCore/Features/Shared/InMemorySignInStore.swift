import Foundation
import Synchronization

/// ``PasswordSignInStore``, ``AuthCodeExchangeStore``, ``AnonymousUserStore`` and
/// ``VerificationStore`` in memory, with the SQL stores' atomicity: every call is one step under
/// a lock, a session is stored only while its user is at the version it was read at, a flow
/// state or a one-time token is spent once, and a stale anonymous user is deleted only while
/// still anonymous. Tests add users, tokens and flow states with ``add(_:)``; events are recorded
/// in `audit`, rate-limit counters in `limits`. For unit tests, held to the SQL stores' behaviour
/// by the contract suites.
public final class InMemorySignInStore: PasswordSignInStore, AuthCodeExchangeStore, AnonymousUserStore, VerificationStore,
    AccountReading
{
    struct State {
        var users: [UUID: UserRecord] = [:]
        var sessions: [UUID: SessionRecord] = [:]
        var flows: [FlowStateRecord] = []
        var tokens: [OneTimeTokenRecord] = []
        var outbox: [OutboxRecord] = []
        var factors: [FactorRecord] = []
    }

    let state = Mutex(State())
    /// Where the events that go with each change are recorded.
    public let audit: InMemoryAuditLogStore
    /// Where the rate-limit counters a call takes are counted.
    public let limits: InMemoryRateLimitStore

    public init(audit: InMemoryAuditLogStore = InMemoryAuditLogStore(), limits: InMemoryRateLimitStore = InMemoryRateLimitStore()) {
        self.audit = audit
        self.limits = limits
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
    /// Deletes a user with its sessions, as an operator would.
    public func remove(_ id: UUID) {
        state.withLock { state in
            state.users[id] = nil
            state.sessions = state.sessions.filter { $0.value.userID != id }
        }
    }
    /// The id of a stored user (any one): for tests that land a write on the only user.
    public var anyUserID: UUID? { state.withLock { $0.users.keys.first } }
    /// How many sessions are stored.
    public var sessionCount: Int { state.withLock { $0.sessions.count } }
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
            try state.write(user)
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

    public func createAnonymousUser(_ user: UserRecord, session: SessionRecord, audit events: [AuditEvent]) async throws {
        try state.withLock { state in
            try state.checkNew(user)
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

    public func appendAudit(_ events: [AuditEvent]) async throws { try await audit.appendAudit(events) }
}

extension InMemorySignInStore.State {
    /// Writes `user` over the stored one while that is still at the version `user` was read at,
    /// as the SQL stores do: ``StoreError/notFound(_:)`` for a deleted user,
    /// ``StoreError/conflict(_:)`` for one written since, ``StoreError/duplicate(_:)`` for an
    /// address or number another user has.
    /// ``StoreError/duplicate(_:)`` when another user has `user`'s address or number, as the SQL
    /// stores' unique indexes answer.
    func checkUnique(_ user: UserRecord) throws {
        let other = users.values.first { other in
            other.id != user.id && ((user.email != nil && other.email == user.email) || (user.phone != nil && other.phone == user.phone))
        }
        if let other { throw StoreError.duplicate("user \(other.id) has the address or number") }
    }

    /// ``StoreError/duplicate(_:)`` when `user`'s id, address or number is taken.
    func checkNew(_ user: UserRecord) throws {
        guard users[user.id] == nil else { throw StoreError.duplicate("user \(user.id)") }
        try checkUnique(user)
    }

    mutating func write(_ user: UserRecord) throws {
        guard let stored = users[user.id] else { throw StoreError.notFound("user \(user.id)") }
        guard stored.version == user.version else {
            throw StoreError.conflict("user \(user.id) changed since it was read at version \(user.version)")
        }
        try checkUnique(user)
        var written = user
        written.version += 1
        users[user.id] = written
    }
}
