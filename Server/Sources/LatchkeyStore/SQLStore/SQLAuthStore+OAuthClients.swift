import Foundation
import LatchkeyCore

extension SQLAuthStore {
    static let oauthClientColumns = """
        id, secret_hash, registration_type, client_type, token_endpoint_auth_method, redirect_uris, grant_types, client_name, \
        client_uri, logo_uri, created_at, updated_at
        """

    static func oauthClient(from row: SQLRow) -> OAuthClientRecord? {
        guard let id = row.uuid("id"), let created = row.date("created_at"), let updated = row.date("updated_at") else { return nil }
        return OAuthClientRecord(
            id: id, secretHash: row.string("secret_hash"), registrationType: row.string("registration_type") ?? "manual",
            clientType: row.string("client_type") ?? "confidential",
            tokenEndpointAuthMethod: row.string("token_endpoint_auth_method") ?? "client_secret_basic",
            redirectURIs: row.strings("redirect_uris"), grantTypes: row.strings("grant_types"), name: row.string("client_name"),
            uri: row.string("client_uri"), logoURI: row.string("logo_uri"), createdAt: created, updatedAt: updated)
    }

    public func oauthClients() async throws -> [OAuthClientRecord] {
        try await database.read { db in
            try await db.query(
                "SELECT \(Self.oauthClientColumns) FROM oauth_clients WHERE deleted_at IS NULL ORDER BY created_at DESC, id DESC", []
            ).compactMap(Self.oauthClient)
        }
    }

    public func oauthClient(id: UUID) async throws -> OAuthClientRecord? {
        try await database.read { db in
            try await db.query(
                "SELECT \(Self.oauthClientColumns) FROM oauth_clients WHERE id = ? AND deleted_at IS NULL", [SQLValue(id)]
            ).first.flatMap(Self.oauthClient)
        }
    }

    public func insertOAuthClient(_ client: OAuthClientRecord, audit: [AuditEvent]) async throws {
        try await translating {
            try await database.transaction { db in
                try await db.query(
                    "INSERT INTO oauth_clients (\(Self.oauthClientColumns)) VALUES (\(Self.placeholders(12)))",
                    [
                        SQLValue(client.id), SQLValue(client.secretHash), .text(client.registrationType), .text(client.clientType),
                        .text(client.tokenEndpointAuthMethod), .text(JSONText.encode(client.redirectURIs)),
                        .text(JSONText.encode(client.grantTypes)), SQLValue(client.name), SQLValue(client.uri), SQLValue(client.logoURI),
                        SQLValue(client.createdAt), SQLValue(client.updatedAt),
                    ])
                try await Self.insert(audit, db)
            }
        }
    }

    public func updateOAuthClient(_ client: OAuthClientRecord, ifUpdatedAt seen: Date, audit: [AuditEvent]) async throws -> Bool {
        try await database.transaction { db in
            let updated = try await !db.query(
                """
                UPDATE oauth_clients SET secret_hash = ?, token_endpoint_auth_method = ?, redirect_uris = ?, grant_types = ?, \
                client_name = ?, client_uri = ?, logo_uri = ?, updated_at = ? \
                WHERE id = ? AND updated_at = ? AND deleted_at IS NULL RETURNING id
                """,
                [
                    SQLValue(client.secretHash), .text(client.tokenEndpointAuthMethod), .text(JSONText.encode(client.redirectURIs)),
                    .text(JSONText.encode(client.grantTypes)), SQLValue(client.name), SQLValue(client.uri), SQLValue(client.logoURI),
                    SQLValue(client.updatedAt), SQLValue(client.id), SQLValue(seen),
                ]
            ).isEmpty
            if updated { try await Self.insert(audit, db) }
            return updated
        }
    }

    public func deleteOAuthClient(id: UUID, at date: Date, audit: [AuditEvent]) async throws -> Bool {
        try await database.transaction { db in
            let deleted = try await !db.query(
                "UPDATE oauth_clients SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL RETURNING id", [SQLValue(date), SQLValue(id)]
            ).isEmpty
            guard deleted else { return false }
            // What the client was granted ends with it: consents, sessions, codes not yet spent.
            try await db.query(
                "UPDATE oauth_consents SET revoked_at = ? WHERE client_id = ? AND revoked_at IS NULL", [SQLValue(date), SQLValue(id)])
            try await Self.endOAuthGrants(clientID: id, userID: nil, db)
            try await Self.insert(audit, db)
            return true
        }
    }
}
