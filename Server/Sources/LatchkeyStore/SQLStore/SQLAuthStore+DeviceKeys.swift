import Foundation
import LatchkeyAPI
import LatchkeyCore

extension SQLAuthStore {
    static let deviceKeyColumns = "id, user_id, name, public_key, created_at, last_used_at, session_id"

    static func deviceKey(from row: SQLRow) -> DeviceKeyRecord? {
        guard let id = row.uuid("id"), let userID = row.uuid("user_id"), let created = row.date("created_at") else { return nil }
        return DeviceKeyRecord(
            id: id, userID: userID, name: row.string("name") ?? "", publicKey: decodeObject(row.string("public_key")),
            createdAt: created, lastUsedAt: row.date("last_used_at"), sessionID: row.uuid("session_id"))
    }

    public func createDeviceKey(_ key: DeviceKeyRecord, limit: Int, audit: [AuditEvent]) async throws -> Bool {
        try await translating {
            try await database.transaction { db in
                guard try await Self.count("device_keys", userID: key.userID, db) < limit else { return false }
                try await db.query(
                    "INSERT INTO device_keys (\(Self.deviceKeyColumns)) VALUES (\(Self.placeholders(7)))",
                    [
                        SQLValue(key.id), SQLValue(key.userID), .text(key.name), .text(Self.encode(key.publicKey)), SQLValue(key.createdAt),
                        SQLValue(key.lastUsedAt), key.sessionID.map(SQLValue.init) ?? .null,
                    ])
                try await Self.insert(audit, db)
                return true
            }
        }
    }

    /// Deletes the user's device keys but the one `session` registered or last signed in with
    /// (all of them without a session).
    static func deleteDeviceKeys(userID: UUID, exceptOfSession session: UUID?, _ db: any SQLExecutor) async throws {
        if let session {
            try await db.query(
                "DELETE FROM device_keys WHERE user_id = ? AND (session_id IS NULL OR session_id <> ?)",
                [SQLValue(userID), SQLValue(session)])
        } else {
            try await db.query("DELETE FROM device_keys WHERE user_id = ?", [SQLValue(userID)])
        }
    }

    public func deviceKeys(userID: UUID) async throws -> [DeviceKeyRecord] {
        try await database.read { db in
            try await db.query(
                "SELECT \(Self.deviceKeyColumns) FROM device_keys WHERE user_id = ? ORDER BY created_at", [SQLValue(userID)]
            ).compactMap(Self.deviceKey)
        }
    }

    public func deviceKey(id: UUID) async throws -> DeviceKeyRecord? {
        try await database.read { db in
            try await db.query("SELECT \(Self.deviceKeyColumns) FROM device_keys WHERE id = ?", [SQLValue(id)]).first.flatMap(
                Self.deviceKey)
        }
    }

    public func deleteDeviceKey(id: UUID, userID: UUID, audit: [AuditEvent]) async throws -> Bool {
        try await database.transaction { db in
            let deleted = try await db.query(
                "DELETE FROM device_keys WHERE id = ? AND user_id = ? RETURNING id", [SQLValue(id), SQLValue(userID)])
            guard !deleted.isEmpty else { return false }
            try await Self.insert(audit, db)
            return true
        }
    }

    public func redeemAssertion(
        keyID: UUID, jti: String, expiresAt: Date, session: SessionRecord, user: UserRecord, audit: [AuditEvent]
    ) async throws -> AssertionRedemption {
        // `READ COMMITTED` on PostgreSQL with the key's row locked: a revocation waits for this
        // sign-in or this sign-in finds the key gone; the user's `version` refuses a ban made
        // meanwhile.
        let lock = database.lockClause(.update)
        return try await database.lockingTransaction { db in
            let key = try await db.query(
                "SELECT id FROM device_keys WHERE id = ? AND user_id = ?\(lock)", [SQLValue(keyID), SQLValue(user.id)])
            guard !key.isEmpty else { return .keyGone }
            // The primary key makes a second use of one assertion a no-op that returns nothing.
            let fresh = try await db.query(
                "INSERT INTO device_key_assertions (key_id, jti, expires_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING RETURNING jti",
                [SQLValue(keyID), .text(jti), SQLValue(expiresAt)])
            guard !fresh.isEmpty else { return .replayed }
            try await db.query(
                "UPDATE device_keys SET last_used_at = ?, session_id = ? WHERE id = ?",
                [SQLValue(session.createdAt), SQLValue(session.id), SQLValue(keyID)])
            try await Self.insert(session, db)
            try await Self.update(user, db)
            try await Self.insert(audit, db)
            return .redeemed
        }
    }
}
