import Foundation
import LatchkeyCore

extension SQLAuthStore: RecoveryCodeStore {
    public func recoveryCodeState(userID: UUID, sessionID: UUID) async throws -> RecoveryCodeState {
        try await database.read { db in
            let codes = try await db.query(
                "SELECT id, user_id, code_hash, created_at, used_at FROM recovery_codes WHERE user_id = ? ORDER BY created_at, id",
                [SQLValue(userID)]
            ).compactMap { row -> RecoveryCodeRecord? in
                guard let id = row.uuid("id"), let owner = row.uuid("user_id"), let hash = row.string("code_hash"),
                    let created = row.date("created_at")
                else { return nil }
                return RecoveryCodeRecord(id: id, userID: owner, codeHash: hash, createdAt: created, usedAt: row.date("used_at"))
            }
            let session = try await db.query(
                "SELECT \(Self.sessionColumns) FROM sessions WHERE id = ? AND user_id = ?", [SQLValue(sessionID), SQLValue(userID)]
            ).first.flatMap(Self.session)
            return RecoveryCodeState(codes: codes, session: session)
        }
    }

    public func replaceRecoveryCodes(userID: UUID, with codes: [RecoveryCodeRecord], audit: [AuditEvent]) async throws {
        try await database.transaction { db in
            try await Self.replaceRecoveryCodes(userID: userID, with: codes, db)
            try await Self.insert(audit, db)
        }
    }

    /// The user's set of codes replaced by `codes`, inside the caller's transaction.
    static func replaceRecoveryCodes(userID: UUID, with codes: [RecoveryCodeRecord], _ db: any SQLExecutor) async throws {
        try await db.query("DELETE FROM recovery_codes WHERE user_id = ?", [SQLValue(userID)])
        for code in codes {
            try await db.query(
                "INSERT INTO recovery_codes (id, user_id, code_hash, created_at, used_at) VALUES (?, ?, ?, ?, ?)",
                [SQLValue(code.id), SQLValue(code.userID), .text(code.codeHash), SQLValue(code.createdAt), SQLValue(code.usedAt)])
        }
    }

    public func spendRecoveryCode(_ spend: RecoveryCodeSpend) async throws -> Bool {
        do {
            return try await database.transaction { db in
                let spent = try await db.query(
                    "UPDATE recovery_codes SET used_at = ? WHERE id = ? AND user_id = ? AND used_at IS NULL RETURNING id",
                    [SQLValue(spend.usedAt), SQLValue(spend.codeID), SQLValue(spend.userID)])
                guard !spent.isEmpty else { return false }
                // The session only while as read: else the conflict rolls the code back too.
                try await Self.raise(spend.seenSession, to: spend.session, userID: spend.userID, db)
                try await insertOutbox(spend.outbox, db)
                try await Self.insert(spend.audit, db)
                return true
            }
        } catch let error as StoreError where error.isConflict {
            return false
        }
    }
}
