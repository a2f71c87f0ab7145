import Foundation
import LatchkeyCore

extension SQLAuthStore {
    static let factorColumns = """
        id, user_id, friendly_name, factor_type, status, sealed_secret, last_used_step, failed_attempts, locked_until, \
        created_at, updated_at, last_challenged_at, phone, webauthn_credential, webauthn_credential_id
        """

    static func factor(from row: SQLRow) -> FactorRecord? {
        guard let id = row.uuid("id"), let userID = row.uuid("user_id"), let created = row.date("created_at"),
            let updated = row.date("updated_at"), let status = row.string("status").flatMap(FactorRecord.Status.init(rawValue:))
        else { return nil }
        return FactorRecord(
            id: id, userID: userID, friendlyName: row.string("friendly_name"), factorType: row.string("factor_type") ?? "totp",
            status: status, sealedSecret: row.string("sealed_secret") ?? "", lastUsedStep: row.int("last_used_step"),
            failedAttempts: Int(row.int("failed_attempts") ?? 0), lockedUntil: row.date("locked_until"), createdAt: created,
            updatedAt: updated, lastChallengedAt: row.date("last_challenged_at"), phone: row.string("phone"),
            webAuthn: row.string("webauthn_credential").flatMap(WebAuthnFactorCredential.init(stored:)))
    }

    public func createFactor(_ factor: FactorRecord, limit: Int, expiringBefore: Date?, audit: [AuditEvent]) async throws -> Bool {
        try await translating {
            try await database.transaction { db in
                if let expiringBefore {
                    // GoTrue's expiry: the user's unverified factors enrolled before it, never challenged.
                    try await db.query(
                        """
                        DELETE FROM mfa_factors WHERE user_id = ? AND status = 'unverified' AND created_at <= ? \
                        AND NOT EXISTS (SELECT 1 FROM mfa_challenges WHERE mfa_challenges.factor_id = mfa_factors.id)
                        """,
                        [SQLValue(factor.userID), SQLValue(expiringBefore)])
                }
                if let phone = factor.phone {
                    // A phone factor replaces the user's unverified ones for its number (their challenges go with them).
                    try await db.query(
                        "DELETE FROM mfa_factors WHERE user_id = ? AND phone = ? AND status = 'unverified'",
                        [SQLValue(factor.userID), .text(phone)])
                }
                guard try await Self.count("mfa_factors", userID: factor.userID, db) < limit else { return false }
                try await db.query(
                    "INSERT INTO mfa_factors (\(Self.factorColumns)) VALUES (\(Self.placeholders(15)))",
                    [
                        SQLValue(factor.id), SQLValue(factor.userID), SQLValue(factor.friendlyName), .text(factor.factorType),
                        .text(factor.status.rawValue), .text(factor.sealedSecret), factor.lastUsedStep.map(SQLValue.init) ?? .null,
                        SQLValue(factor.failedAttempts), SQLValue(factor.lockedUntil), SQLValue(factor.createdAt),
                        SQLValue(factor.updatedAt), SQLValue(factor.lastChallengedAt), SQLValue(factor.phone),
                        SQLValue(factor.webAuthn?.stored), SQLValue(factor.webAuthn?.storedID),
                    ])
                try await Self.insert(audit, db)
                return true
            }
        }
    }

    public func factors(userID: UUID) async throws -> [FactorRecord] {
        try await database.read { db in try await Self.factors(userID: userID, db) }
    }

    static func factors(userID: UUID, _ db: any SQLExecutor) async throws -> [FactorRecord] {
        try await db.query(
            "SELECT \(Self.factorColumns) FROM mfa_factors WHERE user_id = ? ORDER BY created_at, id", [SQLValue(userID)]
        ).compactMap(Self.factor)
    }

    public func deleteFactor(
        id: UUID, userID: UUID, downgradingSessions: Bool, audit: [AuditEvent], outbox: [OutboxRecord]
    ) async throws -> FactorRecord? {
        try await database.transaction { db in
            let deleted = try await db.query(
                "DELETE FROM mfa_factors WHERE id = ? AND user_id = ? RETURNING \(Self.factorColumns)", [SQLValue(id), SQLValue(userID)]
            ).first.flatMap(Self.factor)
            if deleted != nil {
                if downgradingSessions {
                    let sessions = try await db.query(
                        "SELECT \(Self.sessionColumns) FROM sessions WHERE user_id = ? AND aal = 'aal2'", [SQLValue(userID)]
                    ).compactMap(Self.session)
                    for var session in sessions {
                        session.amr.removeAll { FactorRecord.amrMethods.contains($0.method) }
                        try await db.query(
                            "UPDATE sessions SET aal = 'aal1', amr = ? WHERE id = ?",
                            [.text(Self.encodeAMR(session.amr)), SQLValue(session.id)])
                    }
                }
                try await Self.insert(audit, db)
                try await insertOutbox(outbox, db)
            }
            return deleted
        }
    }

    public func resetFactors(
        userID: UUID, audit: @escaping @Sendable ([FactorRecord]) -> [AuditEvent],
        outbox: @escaping @Sendable ([FactorRecord]) throws -> [OutboxRecord]
    ) async throws -> [FactorRecord] {
        try await database.transaction { db in
            // What is deleted is what the events and the notice are written from, in this write.
            let deleted = try await db.query(
                "DELETE FROM mfa_factors WHERE user_id = ? RETURNING \(Self.factorColumns)", [SQLValue(userID)]
            ).compactMap(Self.factor).sorted { ($0.createdAt, $0.id.uuidString) < ($1.createdAt, $1.id.uuidString) }
            guard !deleted.isEmpty else { return [] }
            try await Self.deleteSessions(userID: userID, except: nil, db)
            try await db.query("DELETE FROM recovery_codes WHERE user_id = ?", [SQLValue(userID)])
            try await insertOutbox(try outbox(deleted), db)
            try await Self.insert(audit(deleted), db)
            return deleted
        }
    }

    public func createChallenge(_ challenge: FactorChallengeRecord) async throws {
        try await database.transaction { db in
            try await db.query(
                "UPDATE mfa_factors SET last_challenged_at = ? WHERE id = ?", [SQLValue(challenge.createdAt), SQLValue(challenge.factorID)])
            try await Self.insert(challenge, db)
        }
    }

    /// Stores `challenge`; one with a code (a phone factor's) is its factor's newest: the earlier
    /// codes stop counting.
    static func insert(_ challenge: FactorChallengeRecord, _ db: any SQLExecutor) async throws {
        if challenge.codeHash != nil {
            try await db.query("DELETE FROM mfa_challenges WHERE factor_id = ?", [SQLValue(challenge.factorID)])
        }
        try await db.query(
            "INSERT INTO mfa_challenges (id, factor_id, ip, created_at, expires_at, code_hash) VALUES (?, ?, ?, ?, ?, ?)",
            [
                SQLValue(challenge.id), SQLValue(challenge.factorID), SQLValue(challenge.ip), SQLValue(challenge.createdAt),
                SQLValue(challenge.expiresAt), SQLValue(challenge.codeHash),
            ])
    }

    public func createChallenge(_ challenge: FactorChallengeRecord, ifLastChallengedAt seen: Date?) async throws -> Bool {
        do {
            return try await database.transaction { db in
                // The precondition first: the factor as the cooldown read it (a racing challenge moved it on).
                let claimed = try await db.query(
                    "UPDATE mfa_factors SET last_challenged_at = ? WHERE id = ? AND COALESCE(last_challenged_at, -1) = ? RETURNING id",
                    [SQLValue(challenge.createdAt), SQLValue(challenge.factorID), seen.map(SQLValue.init) ?? .int(-1)])
                guard !claimed.isEmpty else { return false }
                try await Self.insert(challenge, db)
                return true
            }
        } catch let error as StoreError where error.isConflict {
            return false
        }
    }

    public func factorVerification(factorID: UUID, userID: UUID, challengeID: UUID, sessionID: UUID) async throws
        -> FactorVerificationState
    {
        try await database.read { db in
            let factor = try await db.query(
                "SELECT \(Self.factorColumns) FROM mfa_factors WHERE id = ? AND user_id = ?", [SQLValue(factorID), SQLValue(userID)]
            ).first.flatMap(Self.factor)
            let challenge = try await db.query(
                "SELECT id, factor_id, ip, created_at, expires_at, code_hash FROM mfa_challenges WHERE id = ? AND factor_id = ?",
                [SQLValue(challengeID), SQLValue(factorID)]
            ).first.flatMap { row -> FactorChallengeRecord? in
                guard let created = row.date("created_at"), let expires = row.date("expires_at") else { return nil }
                return FactorChallengeRecord(
                    id: challengeID, factorID: factorID, ip: row.string("ip"), createdAt: created, expiresAt: expires,
                    codeHash: row.string("code_hash"))
            }
            let session = try await db.query(
                "SELECT \(Self.sessionColumns) FROM sessions WHERE id = ? AND user_id = ?", [SQLValue(sessionID), SQLValue(userID)]
            ).first.flatMap(Self.session)
            return FactorVerificationState(factor: factor, challenge: challenge, session: session)
        }
    }

    public func recordFactorVerification(_ write: FactorWrite) async throws -> Bool {
        // A second verified factor for one number breaks `mfa_factors_verified_phone_key`: a duplicate.
        try await translating { try await applyFactorVerification(write) }
    }

    private func applyFactorVerification(_ write: FactorWrite) async throws -> Bool {
        do {
            return try await database.transaction { db in
                let seen = write.seen
                let factor = write.factor
                // The precondition: the factor as the decision read it (a WebAuthn key's counter is its last used step).
                let updated = try await db.query(
                    """
                    UPDATE mfa_factors SET status = ?, last_used_step = ?, failed_attempts = ?, locked_until = ?, updated_at = ?, \
                    webauthn_credential = ?, webauthn_credential_id = ? \
                    WHERE id = ? AND user_id = ? AND status = ? AND COALESCE(last_used_step, -1) = ? AND failed_attempts = ? \
                    AND COALESCE(locked_until, -1) = ? AND COALESCE(webauthn_credential_id, '') = ? RETURNING id
                    """,
                    [
                        .text(factor.status.rawValue), factor.lastUsedStep.map(SQLValue.init) ?? .null, SQLValue(factor.failedAttempts),
                        SQLValue(factor.lockedUntil), SQLValue(factor.updatedAt), SQLValue(factor.webAuthn?.stored),
                        SQLValue(factor.webAuthn?.storedID), SQLValue(seen.id), SQLValue(seen.userID), .text(seen.status.rawValue),
                        .int(seen.lastUsedStep ?? -1), SQLValue(seen.failedAttempts), seen.lockedUntil.map(SQLValue.init) ?? .int(-1),
                        .text(seen.webAuthn?.storedID ?? ""),
                    ])
                guard !updated.isEmpty else { return false }
                if let acceptance = write.acceptance { try await accept(acceptance, userID: seen.userID, factorID: seen.id, db) }
                try await Self.insert(write.audit, db)
                return true
            }
        } catch let error as StoreError where error.isConflict {
            return false
        }
    }

    /// A right code's changes beyond its factor: the challenge spent, the session raised (both
    /// only while as read: else a conflict rolls the whole write back) and, on a factor's first
    /// verification, the user's other `aal1` sessions and their device keys ended.
    func accept(_ acceptance: FactorAcceptance, userID: UUID, factorID: UUID, _ db: any SQLExecutor) async throws {
        let spent = try await db.query(
            "DELETE FROM mfa_challenges WHERE id = ? AND factor_id = ? RETURNING id",
            [SQLValue(acceptance.challengeID), SQLValue(factorID)])
        guard !spent.isEmpty else { throw StoreError.conflict("challenge \(acceptance.challengeID) was spent") }
        let seen = acceptance.seenSession
        try await Self.raise(seen, to: acceptance.session, userID: userID, db)
        if acceptance.endingOtherAAL1Sessions {
            try await db.query(
                "DELETE FROM sessions WHERE user_id = ? AND id <> ? AND aal <> 'aal2'", [SQLValue(userID), SQLValue(seen.id)])
            try await Self.deleteDeviceKeys(userID: userID, exceptOfSession: seen.id, db)
        }
        if !acceptance.recoveryCodes.isEmpty { try await Self.replaceRecoveryCodes(userID: userID, with: acceptance.recoveryCodes, db) }
        try await insertOutbox(acceptance.outbox, db)
    }

    /// Writes the session's new level, methods and refresh counter while it still has the level
    /// and counter of `seen`; a ``StoreError/conflict(_:)`` otherwise, rolling the write back.
    static func raise(_ seen: SessionRecord, to session: SessionRecord, userID: UUID, _ db: any SQLExecutor) async throws {
        let raised = try await db.query(
            """
            UPDATE sessions SET aal = ?, amr = ?, refresh_counter = ?, refreshed_at = ?, updated_at = ? \
            WHERE id = ? AND user_id = ? AND aal = ? AND refresh_counter = ? RETURNING id
            """,
            [
                .text(session.aal), .text(Self.encodeAMR(session.amr)), SQLValue(session.refreshCounter), SQLValue(session.refreshedAt),
                SQLValue(session.updatedAt), SQLValue(seen.id), SQLValue(userID), .text(seen.aal), SQLValue(seen.refreshCounter),
            ])
        guard !raised.isEmpty else { throw StoreError.conflict("session \(seen.id) changed since it was read") }
    }

    public func spendChallenge(id: UUID, factorID: UUID) async throws {
        try await database.transaction { db in
            _ = try await db.query("DELETE FROM mfa_challenges WHERE id = ? AND factor_id = ?", [SQLValue(id), SQLValue(factorID)])
        }
    }
}
