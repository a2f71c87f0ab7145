import Foundation
import LatchkeyAPI
import LatchkeyCore

extension SQLAuthStore {
    static let vaultColumns = "id, user_id, verifier_mac, sealed_share, failed_attempts, created_at, updated_at"

    static func vault(from row: SQLRow) -> KeyVaultRecord? {
        guard let id = row.uuid("id"), let userID = row.uuid("user_id"), let mac = row.string("verifier_mac"),
            let created = row.date("created_at"), let updated = row.date("updated_at")
        else { return nil }
        return KeyVaultRecord(
            id: id, userID: userID, verifierMAC: mac, sealedShare: row.string("sealed_share"),
            failedAttempts: Int(row.int("failed_attempts") ?? 0), createdAt: created, updatedAt: updated)
    }

    public func createVault(_ vault: KeyVaultRecord, limit: Int) async throws -> Bool {
        try await translating {
            try await database.transaction { db in
                guard try await Self.count("key_vaults", userID: vault.userID, db) < limit else { return false }
                try await db.query(
                    "INSERT INTO key_vaults (\(Self.vaultColumns)) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [
                        SQLValue(vault.id), SQLValue(vault.userID), .text(vault.verifierMAC), SQLValue(vault.sealedShare),
                        SQLValue(vault.failedAttempts), SQLValue(vault.createdAt), SQLValue(vault.updatedAt),
                    ])
                return true
            }
        }
    }

    public func vaults(userID: UUID) async throws -> [KeyVaultRecord] {
        try await database.read { db in
            try await db.query(
                "SELECT \(Self.vaultColumns) FROM key_vaults WHERE user_id = ? ORDER BY created_at", [SQLValue(userID)]
            ).compactMap(Self.vault)
        }
    }

    public func deleteVault(id: UUID, userID: UUID) async throws -> Bool {
        try await database.transaction { db in
            !(try await db.query(
                "DELETE FROM key_vaults WHERE id = ? AND user_id = ? RETURNING id", [SQLValue(id), SQLValue(userID)]
            ).isEmpty)
        }
    }

    public func vault(id: UUID, userID: UUID) async throws -> KeyVaultRecord? {
        try await database.read { db in
            try await db.query(
                "SELECT \(Self.vaultColumns) FROM key_vaults WHERE id = ? AND user_id = ?", [SQLValue(id), SQLValue(userID)]
            ).first.flatMap(Self.vault)
        }
    }

    public func recordVaultAttempt(
        id: UUID, userID: UUID, seenFailedAttempts: Int, outcome: VaultAttempt, now: Date
    ) async throws -> Bool {
        let attempts = outcome == .unlocked ? 0 : seenFailedAttempts + 1
        return try await database.transaction { db in
            !(try await db.query(
                """
                UPDATE key_vaults SET failed_attempts = ?, sealed_share = CASE WHEN ? = 1 THEN NULL ELSE sealed_share END,
                updated_at = ? WHERE id = ? AND user_id = ? AND failed_attempts = ? AND sealed_share IS NOT NULL RETURNING id
                """,
                [
                    SQLValue(attempts), SQLValue(outcome == .destroyed), SQLValue(now), SQLValue(id), SQLValue(userID),
                    SQLValue(seenFailedAttempts),
                ]
            ).isEmpty)
        }
    }
}
