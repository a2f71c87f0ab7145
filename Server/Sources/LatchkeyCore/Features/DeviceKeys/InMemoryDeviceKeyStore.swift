import Foundation
import Synchronization

/// ``DeviceKeyStore`` and ``DeviceKeySignInStore`` in memory, with the SQL stores' atomicity:
/// every call is one step under a lock, and a redemption checks the key, the `jti` and the
/// user's version in that step. It keeps the users and sessions the sign-in reads and writes
/// (tests add users with ``add(_:)``) and records its audit events in `audit`; for unit tests,
/// held to the SQL stores' behaviour by the contract suites.
public final class InMemoryDeviceKeyStore: DeviceKeyStore, DeviceKeySignInStore, AccountReading {
    struct State {
        var keys: [DeviceKeyRecord] = []
        var users: [UUID: UserRecord] = [:]
        var sessions: [UUID: SessionRecord] = [:]
        /// The `jti`s redeemed per key, with when each may be forgotten.
        var assertions: [UUID: [String: Date]] = [:]
    }

    private let state = Mutex(State())
    /// Where the events that go with each change are recorded.
    public let audit: InMemoryAuditLogStore

    public init(audit: InMemoryAuditLogStore = InMemoryAuditLogStore()) {
        self.audit = audit
    }

    /// Adds a user, as sign-up would.
    public func add(_ user: UserRecord) { state.withLock { $0.users[user.id] = user } }
    /// The session with this id, as stored now.
    public func session(id: UUID) -> SessionRecord? { state.withLock { $0.sessions[id] } }
    /// The key with this id, as stored now.
    public func key(id: UUID) -> DeviceKeyRecord? { state.withLock { $0.keys.first { $0.id == id } } }

    public func createDeviceKey(_ key: DeviceKeyRecord, limit: Int, audit events: [AuditEvent]) async throws -> Bool {
        let stored = state.withLock { state in
            guard !state.keys.contains(where: { $0.id == key.id }), state.keys.filter({ $0.userID == key.userID }).count < limit else {
                return false
            }
            state.keys.append(key)
            return true
        }
        if stored { try await audit.appendAudit(events) }
        return stored
    }

    public func deviceKeys(userID: UUID) async throws -> [DeviceKeyRecord] {
        state.withLock { state in state.keys.filter { $0.userID == userID }.sorted { $0.createdAt < $1.createdAt } }
    }

    public func deleteDeviceKey(id: UUID, userID: UUID, audit events: [AuditEvent]) async throws -> Bool {
        let deleted = state.withLock { state in
            guard let index = state.keys.firstIndex(where: { $0.id == id && $0.userID == userID }) else { return false }
            state.keys.remove(at: index)
            return true
        }
        if deleted { try await audit.appendAudit(events) }
        return deleted
    }

    public func deviceKey(id: UUID) async throws -> DeviceKeyRecord? { key(id: id) }

    public func user(id: UUID) async throws -> UserRecord? { state.withLock { $0.users[id] } }

    public func account(userID: UUID, sessionID: UUID?) async throws -> AccountRecords {
        state.withLock { state in
            AccountRecords(user: state.users[userID], session: sessionID.flatMap { state.sessions[$0] }, identities: [], factors: [])
        }
    }

    public func appendAudit(_ events: [AuditEvent]) async throws { try await audit.appendAudit(events) }

    public func redeemAssertion(
        keyID: UUID, jti: String, expiresAt: Date, session: SessionRecord, user: UserRecord, audit events: [AuditEvent]
    ) async throws -> AssertionRedemption {
        let outcome = try state.withLock { state -> AssertionRedemption in
            guard let index = state.keys.firstIndex(where: { $0.id == keyID && $0.userID == user.id }) else { return .keyGone }
            guard state.assertions[keyID]?[jti] == nil else { return .replayed }
            guard let stored = state.users[user.id] else { throw StoreError.notFound("user \(user.id)") }
            guard stored.version == user.version else {
                throw StoreError.conflict("user \(user.id) changed since it was read at version \(user.version)")
            }
            state.assertions[keyID, default: [:]][jti] = expiresAt
            state.keys[index].lastUsedAt = session.createdAt
            state.keys[index].sessionID = session.id
            state.sessions[session.id] = session
            var written = user
            written.version += 1
            state.users[user.id] = written
            return .redeemed
        }
        if outcome == .redeemed { try await audit.appendAudit(events) }
        return outcome
    }
}
