import Foundation
import Synchronization

/// ``FactorStore`` (and the ``AccountReading`` of a session answer) in memory, with the same atomicity as the SQL stores: every call is one step
/// under a lock, and a verification's write checks its preconditions in that step. It keeps the
/// users, sessions and device keys a verification reads and changes; tests add them with
/// ``add(_:)-(UserRecord)``, ``add(_:)-(SessionRecord)`` and ``add(_:)-(DeviceKeyRecord)``. For
/// unit tests of the use case; the contract suite holds it to the SQL stores' behaviour.
public final class InMemoryFactorStore: FactorStore, AccountReading {
    struct State {
        var users: [UUID: UserRecord] = [:]
        var factors: [UUID: FactorRecord] = [:]
        var challenges: [UUID: FactorChallengeRecord] = [:]
        var sessions: [UUID: SessionRecord] = [:]
        var deviceKeys: [DeviceKeyRecord] = []
        var outbox: [OutboxRecord] = []
    }

    private let state = Mutex(State())
    /// Where the events that go with each change are recorded.
    public let audit: InMemoryAuditLogStore

    public init(audit: InMemoryAuditLogStore = InMemoryAuditLogStore()) {
        self.audit = audit
    }

    /// Adds a user, as sign-up would.
    public func add(_ user: UserRecord) { state.withLock { $0.users[user.id] = user } }
    /// Adds a session, as a sign-in would.
    public func add(_ session: SessionRecord) { state.withLock { $0.sessions[session.id] = session } }
    /// Adds a device key, as registration would.
    public func add(_ key: DeviceKeyRecord) { state.withLock { $0.deviceKeys.append(key) } }

    /// The session with this id, as stored now.
    public func session(id: UUID) -> SessionRecord? { state.withLock { $0.sessions[id] } }
    /// The device keys of a user, as stored now.
    public func deviceKeys(userID: UUID) -> [DeviceKeyRecord] { state.withLock { $0.deviceKeys.filter { $0.userID == userID } } }
    /// The messages queued so far.
    public var queued: [OutboxRecord] { state.withLock { $0.outbox } }

    public func user(id: UUID) async throws -> UserRecord? { state.withLock { $0.users[id] } }

    public func account(userID: UUID, sessionID: UUID?) async throws -> AccountRecords {
        let factors = try await factors(userID: userID)
        return state.withLock { state in
            guard let user = state.users[userID] else { return AccountRecords(user: nil, session: nil, identities: [], factors: []) }
            return AccountRecords(user: user, session: sessionID.flatMap { state.sessions[$0] }, identities: [], factors: factors)
        }
    }

    public func factors(userID: UUID) async throws -> [FactorRecord] {
        state.withLock { state in
            state.factors.values.filter { $0.userID == userID }.sorted {
                ($0.createdAt, $0.id.uuidString.lowercased()) < ($1.createdAt, $1.id.uuidString.lowercased())
            }
        }
    }

    public func appendAudit(_ events: [AuditEvent]) async throws { try await audit.appendAudit(events) }

    public func createFactor(_ factor: FactorRecord, limit: Int, audit events: [AuditEvent]) async throws -> Bool {
        let stored = try state.withLock { state -> Bool in
            let own = state.factors.values.filter { $0.userID == factor.userID }
            guard own.count < limit else { return false }
            if let name = factor.friendlyName, own.contains(where: { $0.friendlyName == name }) {
                throw StoreError.duplicate("mfa_factors_name_key")
            }
            state.factors[factor.id] = factor
            return true
        }
        if stored { try await audit.appendAudit(events) }
        return stored
    }

    public func createChallenge(_ challenge: FactorChallengeRecord) async throws {
        state.withLock { state in
            state.challenges[challenge.id] = challenge
            state.factors[challenge.factorID]?.lastChallengedAt = challenge.createdAt
        }
    }

    public func factorVerification(factorID: UUID, userID: UUID, challengeID: UUID, sessionID: UUID) async throws
        -> FactorVerificationState
    {
        state.withLock { state in
            FactorVerificationState(
                factor: state.factors[factorID].flatMap { $0.userID == userID ? $0 : nil },
                challenge: state.challenges[challengeID].flatMap { $0.factorID == factorID ? $0 : nil },
                session: state.sessions[sessionID].flatMap { $0.userID == userID ? $0 : nil })
        }
    }

    public func recordFactorVerification(_ write: FactorWrite) async throws -> Bool {
        let written = state.withLock { state -> Bool in
            guard let stored = state.factors[write.seen.id], stored.userID == write.seen.userID, stored.decidesLike(write.seen) else {
                return false
            }
            if let acceptance = write.acceptance {
                let seen = acceptance.seenSession
                guard state.challenges[acceptance.challengeID]?.factorID == stored.id,
                    let session = state.sessions[seen.id], session.userID == stored.userID, session.aal == seen.aal,
                    session.refreshCounter == seen.refreshCounter
                else { return false }
                state.challenges[acceptance.challengeID] = nil
                if acceptance.endingOtherAAL1Sessions {
                    state.sessions = state.sessions.filter {
                        $0.value.userID != stored.userID || $0.key == seen.id || $0.value.aal == "aal2"
                    }
                    state.deviceKeys.removeAll { $0.userID == stored.userID && $0.sessionID != seen.id }
                }
                var raised = session
                raised.aal = acceptance.session.aal
                raised.amr = acceptance.session.amr
                raised.refreshCounter = acceptance.session.refreshCounter
                raised.refreshedAt = acceptance.session.refreshedAt
                raised.updatedAt = acceptance.session.updatedAt
                state.sessions[seen.id] = raised
                state.outbox += acceptance.outbox
            }
            var factor = stored
            factor.status = write.factor.status
            factor.lastUsedStep = write.factor.lastUsedStep
            factor.failedAttempts = write.factor.failedAttempts
            factor.lockedUntil = write.factor.lockedUntil
            factor.updatedAt = write.factor.updatedAt
            state.factors[factor.id] = factor
            return true
        }
        if written { try await audit.appendAudit(write.audit) }
        return written
    }

    public func spendChallenge(id: UUID, factorID: UUID) async throws {
        state.withLock { state in
            if state.challenges[id]?.factorID == factorID { state.challenges[id] = nil }
        }
    }

    public func deleteFactor(
        id: UUID, userID: UUID, downgradingSessions: Bool, audit events: [AuditEvent], outbox: [OutboxRecord]
    ) async throws -> FactorRecord? {
        let deleted = state.withLock { state -> FactorRecord? in
            guard let factor = state.factors[id], factor.userID == userID else { return nil }
            state.factors[id] = nil
            state.challenges = state.challenges.filter { $0.value.factorID != id }
            if downgradingSessions {
                for (key, var session) in state.sessions where session.userID == userID && session.aal == "aal2" {
                    session.aal = "aal1"
                    session.amr.removeAll { $0.method == "totp" }
                    state.sessions[key] = session
                }
            }
            state.outbox += outbox
            return factor
        }
        if deleted != nil { try await audit.appendAudit(events) }
        return deleted
    }
}
