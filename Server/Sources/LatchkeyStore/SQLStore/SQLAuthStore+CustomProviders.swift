import Foundation
import LatchkeyAPI
import LatchkeyCore

extension SQLAuthStore {
    static let customProviderColumns = """
        id, identifier, name, client_id, client_secret, acceptable_client_ids, scopes, pkce_enabled, enabled, email_optional, \
        skip_nonce_check, issuer, created_at, updated_at
        """

    static func customProvider(from row: SQLRow) -> CustomProviderRecord? {
        guard let id = row.uuid("id"), let identifier = row.string("identifier"), let created = row.date("created_at"),
            let updated = row.date("updated_at")
        else { return nil }
        return CustomProviderRecord(
            id: id, identifier: identifier, name: row.string("name") ?? "", clientID: row.string("client_id") ?? "",
            sealedSecret: row.string("client_secret") ?? "", acceptableClientIDs: row.strings("acceptable_client_ids"),
            scopes: row.strings("scopes"),
            pkceEnabled: row.bool("pkce_enabled"), enabled: row.bool("enabled"), emailOptional: row.bool("email_optional"),
            skipNonceCheck: row.bool("skip_nonce_check"), issuer: row.string("issuer") ?? "", createdAt: created, updatedAt: updated)
    }

    static func binds(_ provider: CustomProviderRecord) -> [SQLValue] {
        let list = { (items: [String]) in String(decoding: (try? JSONEncoder().encode(items)) ?? Data("[]".utf8), as: UTF8.self) }
        return [
            SQLValue(provider.id), .text(provider.identifier), .text(provider.name), .text(provider.clientID), .text(provider.sealedSecret),
            .text(list(provider.acceptableClientIDs)), .text(list(provider.scopes)), .int(provider.pkceEnabled ? 1 : 0),
            .int(provider.enabled ? 1 : 0), .int(provider.emailOptional ? 1 : 0), .int(provider.skipNonceCheck ? 1 : 0),
            .text(provider.issuer), SQLValue(provider.createdAt), SQLValue(provider.updatedAt),
        ]
    }

    public func customProviders() async throws -> [CustomProviderRecord] {
        try await database.read { db in
            try await db.query("SELECT \(Self.customProviderColumns) FROM custom_oauth_providers ORDER BY created_at, identifier", [])
                .compactMap(Self.customProvider)
        }
    }

    public func customProvider(identifier: String) async throws -> CustomProviderRecord? {
        try await database.read { db in
            try await db.query(
                "SELECT \(Self.customProviderColumns) FROM custom_oauth_providers WHERE identifier = ?", [.text(identifier)]
            ).first.flatMap(Self.customProvider)
        }
    }

    public func insertCustomProvider(_ provider: CustomProviderRecord) async throws {
        try await translating {
            try await database.transaction { db in
                try await db.query(
                    "INSERT INTO custom_oauth_providers (\(Self.customProviderColumns)) VALUES (\(Self.placeholders(14)))",
                    Self.binds(provider))
            }
        }
    }

    public func updateCustomProvider(_ provider: CustomProviderRecord) async throws -> Bool {
        try await database.transaction { db in
            let binds = Self.binds(provider)
            let updated = try await db.query(
                """
                UPDATE custom_oauth_providers SET name = ?, client_id = ?, client_secret = ?, acceptable_client_ids = ?, scopes = ?,
                pkce_enabled = ?, enabled = ?, email_optional = ?, skip_nonce_check = ?, issuer = ?, updated_at = ?
                WHERE identifier = ? RETURNING id
                """, Array(binds[2...11]) + [binds[13], binds[1]])
            return !updated.isEmpty
        }
    }

    public func deleteCustomProvider(identifier: String) async throws -> Bool {
        try await database.transaction { db in
            !(try await db.query("DELETE FROM custom_oauth_providers WHERE identifier = ? RETURNING id", [.text(identifier)])).isEmpty
        }
    }
}
