import Foundation
import LatchkeyAPI
import LatchkeyCore

extension SQLAuthStore {
    static let passkeyColumns = """
        id, user_id, credential_id, public_key, attestation_type, aaguid, sign_count, transports, backup_eligible, backed_up, \
        friendly_name, created_at, updated_at, last_used_at
        """

    static func passkey(from row: SQLRow) -> PasskeyRecord? {
        guard let id = row.uuid("id"), let userID = row.uuid("user_id"), let credential = row.string("credential_id").flatMap(bytes),
            let key = row.string("public_key").flatMap(bytes), let created = row.date("created_at"), let updated = row.date("updated_at")
        else { return nil }
        let transports = row.strings("transports")
        return PasskeyRecord(
            id: id, userID: userID, credentialID: credential, publicKey: key, attestationType: row.string("attestation_type") ?? "",
            aaguid: row.string("aaguid").flatMap(bytes) ?? [], signCount: UInt32(clamping: row.int("sign_count") ?? 0),
            transports: transports, backupEligible: row.bool("backup_eligible"), backedUp: row.bool("backed_up"),
            friendlyName: row.string("friendly_name") ?? "", createdAt: created, updatedAt: updated, lastUsedAt: row.date("last_used_at"))
    }

    /// Binary columns are base64url text, on SQLite and PostgreSQL alike.
    static func bytes(_ text: String) -> [UInt8]? { Base64URL.decode(text, maxLength: 8192) }

    public func createWebAuthnChallenge(_ challenge: WebAuthnChallengeRecord) async throws {
        try await database.transaction { db in
            try await db.query(
                "INSERT INTO webauthn_challenges (id, user_id, ceremony, challenge, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)",
                [
                    SQLValue(challenge.id), challenge.userID.map(SQLValue.init) ?? .null, .text(challenge.ceremony.rawValue),
                    .text(Base64URL.encode(challenge.challenge)), SQLValue(challenge.createdAt), SQLValue(challenge.expiresAt),
                ])
        }
    }

    public func spendWebAuthnChallenge(id: UUID, ceremony: WebAuthnChallengeRecord.Ceremony, userID: UUID?) async throws
        -> WebAuthnChallengeRecord?
    {
        try await database.transaction { db in
            let owner = userID == nil ? "user_id IS NULL" : "user_id = ?"
            let binds: [SQLValue] = [SQLValue(id), .text(ceremony.rawValue)] + (userID.map { [SQLValue($0)] } ?? [])
            guard
                let row = try await db.query(
                    """
                    DELETE FROM webauthn_challenges WHERE id = ? AND ceremony = ? AND \(owner)
                    RETURNING id, user_id, challenge, created_at, expires_at
                    """, binds
                ).first,
                let challenge = row.string("challenge").flatMap(Self.bytes), let created = row.date("created_at"),
                let expires = row.date("expires_at")
            else { return nil }
            return WebAuthnChallengeRecord(
                id: id, userID: row.uuid("user_id"), ceremony: ceremony, challenge: challenge, createdAt: created, expiresAt: expires)
        }
    }

    public func passkeys(userID: UUID) async throws -> [PasskeyRecord] {
        try await database.read { db in
            try await db.query(
                "SELECT \(Self.passkeyColumns) FROM webauthn_credentials WHERE user_id = ? ORDER BY created_at, id", [SQLValue(userID)]
            ).compactMap(Self.passkey)
        }
    }

    public func passkey(credentialID: [UInt8]) async throws -> PasskeyRecord? {
        try await database.read { db in
            try await db.query(
                "SELECT \(Self.passkeyColumns) FROM webauthn_credentials WHERE credential_id = ?", [.text(Base64URL.encode(credentialID))]
            ).first.flatMap(Self.passkey)
        }
    }

    public func createPasskey(_ passkey: PasskeyRecord, limit: Int, audit: [AuditEvent]) async throws -> Bool {
        try await translating {
            try await database.transaction { db in
                // Counted in the inserting transaction (serializable on PostgreSQL, one writer on
                // SQLite), so racing registrations cannot pass the cap together.
                guard try await Self.count("webauthn_credentials", userID: passkey.userID, db) < limit else { return false }
                let transports = String(decoding: (try? JSONEncoder().encode(passkey.transports)) ?? Data("[]".utf8), as: UTF8.self)
                try await db.query(
                    "INSERT INTO webauthn_credentials (\(Self.passkeyColumns)) VALUES (\(Self.placeholders(14)))",
                    [
                        SQLValue(passkey.id), SQLValue(passkey.userID), .text(Base64URL.encode(passkey.credentialID)),
                        .text(Base64URL.encode(passkey.publicKey)), .text(passkey.attestationType), .text(Base64URL.encode(passkey.aaguid)),
                        .int(Int64(passkey.signCount)), .text(transports), SQLValue(passkey.backupEligible), SQLValue(passkey.backedUp),
                        .text(passkey.friendlyName), SQLValue(passkey.createdAt), SQLValue(passkey.updatedAt), SQLValue(passkey.lastUsedAt),
                    ])
                try await Self.insert(audit, db)
                return true
            }
        }
    }

    public func renamePasskey(id: UUID, userID: UUID, name: String, at date: Date, audit: [AuditEvent]) async throws -> PasskeyRecord? {
        try await database.transaction { db in
            guard
                let row = try await db.query(
                    """
                    UPDATE webauthn_credentials SET friendly_name = ?, updated_at = ? WHERE id = ? AND user_id = ?
                    RETURNING \(Self.passkeyColumns)
                    """, [.text(name), SQLValue(date), SQLValue(id), SQLValue(userID)]
                ).first
            else { return nil }
            try await Self.insert(audit, db)
            return Self.passkey(from: row)
        }
    }

    public func deletePasskey(id: UUID, userID: UUID, audit: [AuditEvent]) async throws -> Bool {
        try await database.transaction { db in
            let deleted = try await db.query(
                "DELETE FROM webauthn_credentials WHERE id = ? AND user_id = ? RETURNING id", [SQLValue(id), SQLValue(userID)])
            guard !deleted.isEmpty else { return false }
            try await Self.insert(audit, db)
            return true
        }
    }

    public func recordPasskeySignIn(
        passkeyID: UUID, seenCount: UInt32, newCount: UInt32, backedUp: Bool, at date: Date, session: SessionRecord, user: UserRecord,
        audit: [AuditEvent]
    ) async throws -> Bool {
        try await database.transaction { db in
            let moved = try await db.query(
                """
                UPDATE webauthn_credentials SET sign_count = ?, backed_up = ?, last_used_at = ?, updated_at = ?
                WHERE id = ? AND user_id = ? AND sign_count = ? RETURNING id
                """,
                [
                    .int(Int64(newCount)), SQLValue(backedUp), SQLValue(date), SQLValue(date), SQLValue(passkeyID), SQLValue(user.id),
                    .int(Int64(seenCount)),
                ])
            guard !moved.isEmpty else { return false }
            // A conflict here rolls the counter back with everything else.
            try await Self.update(user, db)
            try await Self.insert(session, db)
            try await Self.insert(audit, db)
            return true
        }
    }
}
