import Foundation
import LatchkeyCore

extension SQLAuthStore {
    public func deleteAnonymousUsers(
        createdBefore date: Date, limit: Int, audit: @escaping @Sendable (UUID) -> AuditEvent
    ) async throws -> Int {
        try await database.transaction { db in
            // The condition is checked again by the delete: a user upgraded in between stays.
            let deleted = try await db.query(
                """
                DELETE FROM users WHERE id IN (
                    SELECT id FROM users WHERE is_anonymous = 1 AND created_at < ? ORDER BY created_at LIMIT ?
                ) AND is_anonymous = 1 RETURNING id
                """, [SQLValue(date), SQLValue(limit)])
            let ids = deleted.compactMap { $0.uuid("id") }
            try await Self.insert(ids.map(audit), db)
            return ids.count
        }
    }
}
