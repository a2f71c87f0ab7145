import Foundation
import LatchkeyCore

extension SQLAuthStore {
    public func signingKeys() async throws -> [SigningKeyRecord] {
        try await database.read { db in
            try await db.query(
                "SELECT kid, algorithm, sealed_private_key, public_jwk, created_at, signs_from FROM signing_keys ORDER BY signs_from, created_at",
                []
            ).compactMap { row in
                guard let kid = row.string("kid"), let sealed = row.string("sealed_private_key"), let created = row.date("created_at"),
                    let signsFrom = row.date("signs_from")
                else { return nil }
                return SigningKeyRecord(
                    kid: kid, algorithm: row.string("algorithm") ?? "ES256", sealedPrivateKey: sealed,
                    publicJWK: Self.decodeObject(row.string("public_jwk")), createdAt: created, signsFrom: signsFrom)
            }
        }
    }

    public func addSigningKey(_ key: SigningKeyRecord, audit: [AuditEvent]) async throws -> Bool {
        try await database.transaction { db in
            let added = try await db.query(
                """
                INSERT INTO signing_keys (kid, algorithm, sealed_private_key, public_jwk, created_at, signs_from)
                VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING kid
                """,
                [
                    .text(key.kid), .text(key.algorithm), .text(key.sealedPrivateKey), .text(Self.encode(key.publicJWK)),
                    SQLValue(key.createdAt), SQLValue(key.signsFrom),
                ])
            if !added.isEmpty { try await Self.insert(audit, db) }
            return !added.isEmpty
        }
    }

    public func deleteSigningKeys(kids: [String], audit: [AuditEvent]) async throws -> Int {
        guard !kids.isEmpty else { return 0 }
        return try await database.transaction { db in
            let deleted = try await db.query(
                "DELETE FROM signing_keys WHERE kid IN (\(Self.placeholders(kids.count))) RETURNING kid", kids.map { .text($0) })
            if !deleted.isEmpty { try await Self.insert(audit, db) }
            return deleted.count
        }
    }
}
