import Foundation
import Synchronization

extension InMemoryStore: FactorStore {
    public func createFactor(_ factor: FactorRecord, limit: Int, expiringBefore: Date?, audit events: [AuditEvent]) async throws
        -> Bool
    {
        try state.withLock { state in
            // The user's unverified factors enrolled before the expiry, never challenged, go.
            if let expiringBefore {
                let challenged = Set(state.challenges.values.map(\.factorID))
                state.factors = state.factors.filter {
                    $0.value.userID != factor.userID || $0.value.status == .verified || $0.value.createdAt > expiringBefore
                        || challenged.contains($0.key)
                }
            }
            // A phone factor replaces the user's unverified ones for its number.
            if let phone = factor.phone {
                state.factors = state.factors.filter {
                    $0.value.userID != factor.userID || $0.value.phone != phone || $0.value.status == .verified
                }
                state.challenges = state.challenges.filter { state.factors[$0.value.factorID] != nil }
            }
            let own = state.factors.values.filter { $0.userID == factor.userID }
            guard own.count < limit else { return false }
            if let name = factor.friendlyName, own.contains(where: { $0.friendlyName == name }) {
                throw StoreError.duplicate("mfa_factors_name_key")
            }
            state.factors[factor.id] = factor
            state.events += events
            return true
        }
    }

    public func createChallenge(_ challenge: FactorChallengeRecord) async throws {
        state.withLock { $0.insert(challenge) }
    }

    public func createChallenge(_ challenge: FactorChallengeRecord, ifLastChallengedAt seen: Date?) async throws -> Bool {
        state.withLock { state in
            guard let factor = state.factors[challenge.factorID], factor.lastChallengedAt == seen else { return false }
            state.insert(challenge)
            return true
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
        try state.withLock { state in
            guard let stored = state.factors[write.seen.id], stored.userID == write.seen.userID, stored.decidesLike(write.seen) else {
                return false
            }
            // One verified factor per number (the SQL stores' unique index).
            if write.factor.status == .verified, stored.status != .verified, let phone = stored.phone,
                state.factors.values.contains(where: { $0.userID == stored.userID && $0.phone == phone && $0.status == .verified })
            {
                throw StoreError.duplicate("mfa_factors_verified_phone_key")
            }
            // A WebAuthn key is one factor's (the SQL stores' unique index).
            if let key = write.factor.webAuthn, stored.webAuthn == nil,
                state.factors.values.contains(where: { $0.webAuthn?.credentialID == key.credentialID })
            {
                throw StoreError.duplicate("mfa_factors_webauthn_credential_key")
            }
            if let acceptance = write.acceptance {
                guard state.accept(acceptance, for: stored) else { return false }
            }
            var factor = stored
            factor.status = write.factor.status
            factor.lastUsedStep = write.factor.lastUsedStep
            factor.failedAttempts = write.factor.failedAttempts
            factor.lockedUntil = write.factor.lockedUntil
            factor.webAuthn = write.factor.webAuthn
            factor.updatedAt = write.factor.updatedAt
            state.factors[factor.id] = factor
            state.events += write.audit
            return true
        }
    }

    public func spendChallenge(id: UUID, factorID: UUID) async throws {
        state.withLock { state in
            if state.challenges[id]?.factorID == factorID { state.challenges[id] = nil }
        }
    }

    public func deleteFactor(
        id: UUID, userID: UUID, downgradingSessions: Bool, audit events: [AuditEvent], outbox: [OutboxRecord]
    ) async throws -> FactorRecord? {
        state.withLock { state in
            guard let factor = state.factors[id], factor.userID == userID else { return nil }
            state.factors[id] = nil
            state.challenges = state.challenges.filter { $0.value.factorID != id }
            if downgradingSessions {
                for (key, var session) in state.sessions where session.userID == userID && session.aal == "aal2" {
                    session.aal = "aal1"
                    session.amr.removeAll { FactorRecord.amrMethods.contains($0.method) }
                    state.sessions[key] = session
                }
            }
            state.outbox += outbox
            state.events += events
            return factor
        }
    }
}

extension InMemoryStore {
    public func resetFactors(
        userID: UUID, audit: @escaping @Sendable ([FactorRecord]) -> [AuditEvent],
        outbox: @escaping @Sendable ([FactorRecord]) throws -> [OutboxRecord]
    ) async throws -> [FactorRecord] {
        try state.withLock { state in
            let deleted = state.factors.values.filter { $0.userID == userID }.sorted {
                ($0.createdAt, $0.id.uuidString) < ($1.createdAt, $1.id.uuidString)
            }
            guard !deleted.isEmpty else { return [] }
            let mail = try outbox(deleted)
            for factor in deleted { state.factors[factor.id] = nil }
            state.challenges = state.challenges.filter { challenge in !deleted.contains { $0.id == challenge.value.factorID } }
            state.sessions = state.sessions.filter { $0.value.userID != userID }
            state.deviceKeys.removeAll { $0.userID == userID }
            state.recoveryCodes.removeAll { $0.userID == userID }
            state.outbox += mail
            state.events += audit(deleted)
            return deleted
        }
    }
}

extension InMemoryStore.State {
    /// Stores `challenge` and notes when its factor was challenged; one carrying a code (a phone
    /// factor's) is its factor's newest: earlier ones go.
    mutating func insert(_ challenge: FactorChallengeRecord) {
        if challenge.codeHash != nil { challenges = challenges.filter { $0.value.factorID != challenge.factorID } }
        challenges[challenge.id] = challenge
        factors[challenge.factorID]?.lastChallengedAt = challenge.createdAt
    }

    /// Writes the session's new level, methods and refresh counter while it still has the level
    /// and counter of `seen`; `false` (nothing changed) otherwise.
    mutating func raise(_ seen: SessionRecord, to session: SessionRecord, userID: UUID) -> Bool {
        guard var raised = sessions[seen.id], raised.userID == userID, raised.aal == seen.aal, raised.refreshCounter == seen.refreshCounter
        else { return false }
        raised.aal = session.aal
        raised.amr = session.amr
        raised.refreshCounter = session.refreshCounter
        raised.refreshedAt = session.refreshedAt
        raised.updatedAt = session.updatedAt
        sessions[seen.id] = raised
        return true
    }

    /// Spends the accepted challenge and raises the session it was answered in, while that
    /// session is as it was read; `false` (nothing changed) otherwise.
    mutating func accept(_ acceptance: FactorAcceptance, for factor: FactorRecord) -> Bool {
        let seen = acceptance.seenSession
        guard challenges[acceptance.challengeID]?.factorID == factor.id, raise(seen, to: acceptance.session, userID: factor.userID)
        else { return false }
        challenges[acceptance.challengeID] = nil
        if acceptance.endingOtherAAL1Sessions {
            sessions = sessions.filter { $0.value.userID != factor.userID || $0.key == seen.id || $0.value.aal == "aal2" }
            deviceKeys.removeAll { $0.userID == factor.userID && $0.sessionID != seen.id }
        }
        if !acceptance.recoveryCodes.isEmpty {
            recoveryCodes.removeAll { $0.userID == factor.userID }
            recoveryCodes += acceptance.recoveryCodes
        }
        outbox += acceptance.outbox
        return true
    }
}
