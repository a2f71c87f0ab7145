import Foundation
import LatchkeyCore

extension SQLAuthStore {
    public func saveProviderGrant(_ grant: ProviderGrantRecord) async throws {
        try await database.transaction { db in
            // Written only for a user still there: one deleted meanwhile keeps nothing.
            let written = try await db.query(
                """
                INSERT INTO provider_grants (user_id, provider, subject, client_id, refresh_token, created_at)
                SELECT ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM users WHERE id = ?)
                ON CONFLICT (user_id, provider, subject) DO UPDATE SET
                    client_id = excluded.client_id, refresh_token = excluded.refresh_token, created_at = excluded.created_at
                RETURNING user_id
                """,
                [
                    SQLValue(grant.userID), .text(grant.provider), .text(grant.subject), .text(grant.clientID),
                    .text(grant.sealedRefreshToken), SQLValue(grant.createdAt), SQLValue(grant.userID),
                ])
            guard !written.isEmpty else { throw StoreError.notFound("user \(grant.userID)") }
        }
    }

    public func providerGrants(userID: UUID) async throws -> [ProviderGrantRecord] {
        try await database.read { db in
            try await db.query(
                """
                SELECT user_id, provider, subject, client_id, refresh_token, created_at FROM provider_grants
                WHERE user_id = ? ORDER BY provider, subject
                """, [SQLValue(userID)]
            ).compactMap { row in
                guard let user = row.uuid("user_id"), let provider = row.string("provider"), let subject = row.string("subject"),
                    let client = row.string("client_id"), let token = row.string("refresh_token"), let created = row.date("created_at")
                else { return nil }
                return ProviderGrantRecord(
                    userID: user, provider: provider, subject: subject, clientID: client, sealedRefreshToken: token, createdAt: created)
            }
        }
    }
}
