import Foundation
import Synchronization

/// ``SessionRefreshStore`` in memory, with the SQL stores' atomicity: a read is one step under a
/// lock, and so is a write with its precondition, after its rate-limit counters (a limit passed
/// stores only the counters). Tests add users and sessions with ``add(_:)``; the
/// events revocations record are in `audit`. For unit tests, held to the SQL stores' behaviour
/// by the contract suite.
public final class InMemorySessionRefreshStore: SessionRefreshStore, AccountReading {
    struct State {
        var users: [UUID: UserRecord] = [:]
        var sessions: [UUID: SessionRecord] = [:]
    }

    private let state = Mutex(State())
    /// Where the counters of each write are kept.
    public let limits: InMemoryRateLimitStore
    /// Where revocations record their events.
    public let audit: InMemoryAuditLogStore

    public init(limits: InMemoryRateLimitStore = InMemoryRateLimitStore(), audit: InMemoryAuditLogStore = InMemoryAuditLogStore()) {
        self.limits = limits
        self.audit = audit
    }

    /// Adds or replaces a user, as sign-up or an operator would.
    public func add(_ user: UserRecord) { state.withLock { $0.users[user.id] = user } }
    /// Adds or replaces a session, as a sign-in would.
    public func add(_ session: SessionRecord) { state.withLock { $0.sessions[session.id] = session } }
    /// Ends a session, as a sign-out or a ban would.
    public func removeSession(id: UUID) { state.withLock { _ = $0.sessions.removeValue(forKey: id) } }
    /// The session with this id, as stored now.
    public func session(id: UUID) -> SessionRecord? { state.withLock { $0.sessions[id] } }

    public func refreshState(sessionID: UUID) async throws -> AccountRecords {
        state.withLock { state in
            guard let session = state.sessions[sessionID] else {
                return AccountRecords(user: nil, session: nil, identities: [], factors: [])
            }
            return AccountRecords(user: state.users[session.userID], session: session, identities: [], factors: [])
        }
    }

    public func account(userID: UUID, sessionID: UUID?) async throws -> AccountRecords {
        state.withLock { state in
            AccountRecords(user: state.users[userID], session: sessionID.flatMap { state.sessions[$0] }, identities: [], factors: [])
        }
    }

    public func applyRefresh(_ write: RefreshWrite, limits counters: [RateLimitCounter]) async throws -> Bool {
        let counts = try await limits.incrementRateLimits(counters)
        if let index = counts.indices.first(where: { counts[$0] > counters[$0].limit }) { throw RateLimitExceeded(index: index) }
        return try await apply(write)
    }

    private func apply(_ write: RefreshWrite) async throws -> Bool {
        switch write {
        case .rotate(let next):
            return state.withLock { state in
                guard state.sessions[next.id]?.refreshCounter == next.refreshCounter - 1 else { return false }
                state.sessions[next.id] = next
                return true
            }
        case .reuse(let current):
            return state.withLock { $0.sessions[current.id]?.refreshCounter == current.refreshCounter }
        case .revoke(let id, let events):
            state.withLock { _ = $0.sessions.removeValue(forKey: id) }
            try await audit.appendAudit(events)
            return true
        case .countersOnly:
            return true
        }
    }
}
