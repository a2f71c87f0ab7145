import Foundation
import LatchkeyCore

extension SQLAuthStore {
    public func anonymousUsers(createdBefore date: Date, limit: Int) async throws -> [UUID] {
        try await database.read { db in
            try await db.query(
                "SELECT id FROM users WHERE is_anonymous = 1 AND created_at < ? ORDER BY created_at LIMIT ?",
                [SQLValue(date), SQLValue(limit)]
            ).compactMap { $0.uuid("id") }
        }
    }

    public func deleteAnonymousUsers(_ ids: [UUID], createdBefore date: Date, audit: [UUID: AuditEvent]) async throws -> [UUID] {
        guard !ids.isEmpty else { return [] }
        return try await database.transaction { db in
            // The condition is checked again by the delete: a user upgraded since it was read stays.
            let deleted = try await db.query(
                """
                DELETE FROM users WHERE id IN (\(Self.placeholders(ids.count))) AND is_anonymous = 1 AND created_at < ?
                RETURNING id
                """, ids.map { SQLValue($0) } + [SQLValue(date)]
            ).compactMap { $0.uuid("id") }
            try await Self.insert(deleted.compactMap { audit[$0] }, db)
            return deleted
        }
    }
}
