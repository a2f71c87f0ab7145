import Foundation
import LatchkeyCore

extension SQLAuthStore {
    static let factorColumns = """
        id, user_id, friendly_name, factor_type, status, sealed_secret, last_used_step, failed_attempts, locked_until, \
        created_at, updated_at, last_challenged_at
        """

    static func factor(from row: SQLRow) -> FactorRecord? {
        guard let id = row.uuid("id"), let userID = row.uuid("user_id"), let created = row.date("created_at"),
            let updated = row.date("updated_at"), let status = row.string("status").flatMap(FactorRecord.Status.init(rawValue:))
        else { return nil }
        return FactorRecord(
            id: id, userID: userID, friendlyName: row.string("friendly_name"), factorType: row.string("factor_type") ?? "totp",
            status: status, sealedSecret: row.string("sealed_secret") ?? "", lastUsedStep: row.int("last_used_step"),
            failedAttempts: Int(row.int("failed_attempts") ?? 0), lockedUntil: row.date("locked_until"), createdAt: created,
            updatedAt: updated, lastChallengedAt: row.date("last_challenged_at"))
    }

    public func createFactor(_ factor: FactorRecord, limit: Int, audit: [AuditEvent]) async throws -> Bool {
        try await translating {
            try await database.transaction { db in
                guard try await Self.count("mfa_factors", userID: factor.userID, db) < limit else { return false }
                try await db.query(
                    "INSERT INTO mfa_factors (\(Self.factorColumns)) VALUES (\(Self.placeholders(12)))",
                    [
                        SQLValue(factor.id), SQLValue(factor.userID), SQLValue(factor.friendlyName), .text(factor.factorType),
                        .text(factor.status.rawValue), .text(factor.sealedSecret), factor.lastUsedStep.map(SQLValue.init) ?? .null,
                        SQLValue(factor.failedAttempts), SQLValue(factor.lockedUntil), SQLValue(factor.createdAt),
                        SQLValue(factor.updatedAt), SQLValue(factor.lastChallengedAt),
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
                        session.amr.removeAll { $0.method == "totp" }
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

    public func createChallenge(_ challenge: FactorChallengeRecord) async throws {
        try await database.transaction { db in
            try await db.query(
                "INSERT INTO mfa_challenges (id, factor_id, ip, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
                [
                    SQLValue(challenge.id), SQLValue(challenge.factorID), SQLValue(challenge.ip), SQLValue(challenge.createdAt),
                    SQLValue(challenge.expiresAt),
                ])
            try await db.query(
                "UPDATE mfa_factors SET last_challenged_at = ? WHERE id = ?", [SQLValue(challenge.createdAt), SQLValue(challenge.factorID)])
        }
    }

    public func verifyFactor(
        id: UUID, userID: UUID, challengeID: UUID, sessionID: UUID,
        decide: @escaping @Sendable (FactorRecord?, FactorChallengeRecord?, SessionRecord?) -> FactorDecision
    ) async throws -> FactorDecision {
        try await database.transaction { db in
            let factor = try await db.query(
                "SELECT \(Self.factorColumns) FROM mfa_factors WHERE id = ? AND user_id = ?", [SQLValue(id), SQLValue(userID)]
            ).first.flatMap(Self.factor)
            let challenge = try await db.query(
                "SELECT id, factor_id, ip, created_at, expires_at FROM mfa_challenges WHERE id = ? AND factor_id = ?",
                [SQLValue(challengeID), SQLValue(id)]
            ).first.flatMap { row -> FactorChallengeRecord? in
                guard let created = row.date("created_at"), let expires = row.date("expires_at") else { return nil }
                return FactorChallengeRecord(id: challengeID, factorID: id, ip: row.string("ip"), createdAt: created, expiresAt: expires)
            }
            let session = try await db.query(
                "SELECT \(Self.sessionColumns) FROM sessions WHERE id = ? AND user_id = ?", [SQLValue(sessionID), SQLValue(userID)]
            ).first.flatMap(Self.session)
            let decision = decide(factor, challenge, session)
            switch decision {
            case .accept(let factor, let session, let audit, let outbox, let endingOtherAAL1Sessions):
                try await Self.update(factor, db)
                try await db.query("DELETE FROM mfa_challenges WHERE id = ?", [SQLValue(challengeID)])
                if endingOtherAAL1Sessions {
                    try await db.query(
                        "DELETE FROM sessions WHERE user_id = ? AND id <> ? AND aal <> 'aal2'", [SQLValue(userID), SQLValue(sessionID)])
                    try await Self.deleteDeviceKeys(userID: userID, exceptOfSession: sessionID, db)
                }
                try await db.query(
                    "UPDATE sessions SET aal = ?, amr = ?, refresh_counter = ?, refreshed_at = ?, updated_at = ? WHERE id = ?",
                    [
                        .text(session.aal), .text(Self.encodeAMR(session.amr)), SQLValue(session.refreshCounter),
                        SQLValue(session.refreshedAt), SQLValue(session.updatedAt), SQLValue(session.id),
                    ])
                try await Self.insert(audit, db)
                try await insertOutbox(outbox, db)
            case .refuse(let factor, _, let audit):
                try await Self.update(factor, db)
                try await Self.insert(audit, db)
            case .reject(_, let spend):
                if spend { try await db.query("DELETE FROM mfa_challenges WHERE id = ?", [SQLValue(challengeID)]) }
            }
            return decision
        }
    }

    static func update(_ factor: FactorRecord, _ db: any SQLExecutor) async throws {
        try await db.query(
            "UPDATE mfa_factors SET status = ?, last_used_step = ?, failed_attempts = ?, locked_until = ?, updated_at = ? WHERE id = ?",
            [
                .text(factor.status.rawValue), factor.lastUsedStep.map(SQLValue.init) ?? .null, SQLValue(factor.failedAttempts),
                SQLValue(factor.lockedUntil), SQLValue(factor.updatedAt), SQLValue(factor.id),
            ])
    }
}
