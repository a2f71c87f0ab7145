import Foundation
import LatchkeyAPI
import LatchkeyCore

extension SQLAuthStore {
    static let signerColumns = "user_id, public_key, recovery, ciphertext, kdf, created_at, updated_at"

    static func signerBackup(from row: SQLRow) -> SignerBackupRecord? {
        guard let userID = row.uuid("user_id"), let publicKey = row.string("public_key"), let recovery = row.string("recovery"),
            let ciphertext = row.string("ciphertext"), let created = row.date("created_at"), let updated = row.date("updated_at")
        else { return nil }
        let kdf = row.string("kdf").flatMap { try? JSONDecoder().decode(SignerKDF.self, from: Data($0.utf8)) }
        return SignerBackupRecord(
            userID: userID, publicKey: publicKey, recovery: recovery, ciphertext: ciphertext, kdf: kdf, createdAt: created,
            updatedAt: updated)
    }

    public func putSignerBackup(_ backup: SignerBackupRecord) async throws -> Bool {
        let kdf = try backup.kdf.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
        return try await translating {
            try await database.transaction { db in
                // Insert, or update only a backup of the same key: another key is never overwritten.
                let written = try await db.query(
                    """
                    INSERT INTO signer_backups (\(Self.signerColumns)) VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (user_id) DO UPDATE SET recovery = excluded.recovery, ciphertext = excluded.ciphertext,
                        kdf = excluded.kdf, updated_at = excluded.updated_at
                    WHERE signer_backups.public_key = excluded.public_key
                    RETURNING user_id
                    """,
                    [
                        SQLValue(backup.userID), .text(backup.publicKey), .text(backup.recovery), .text(backup.ciphertext),
                        SQLValue(kdf), SQLValue(backup.createdAt), SQLValue(backup.updatedAt),
                    ])
                return !written.isEmpty
            }
        }
    }

    public func signerBackup(userID: UUID) async throws -> SignerBackupRecord? {
        try await database.read { db in
            try await db.query("SELECT \(Self.signerColumns) FROM signer_backups WHERE user_id = ?", [SQLValue(userID)])
                .first.flatMap(Self.signerBackup)
        }
    }

    public func deleteSignerBackup(userID: UUID) async throws -> Bool {
        try await database.transaction { db in
            !(try await db.query("DELETE FROM signer_backups WHERE user_id = ? RETURNING user_id", [SQLValue(userID)]).isEmpty)
        }
    }

    public func signerRecoveryKey(userID: UUID, creating sealedKey: String, at date: Date) async throws -> String {
        try await database.transaction { db in
            try await db.query(
                "INSERT INTO signer_recovery_keys (user_id, sealed_key, created_at) VALUES (?, ?, ?) ON CONFLICT (user_id) DO NOTHING",
                [SQLValue(userID), .text(sealedKey), SQLValue(date)])
            let rows = try await db.query("SELECT sealed_key FROM signer_recovery_keys WHERE user_id = ?", [SQLValue(userID)])
            guard let stored = rows.first?.string("sealed_key") else { throw StoreError.notFound("signer recovery key") }
            return stored
        }
    }
}
