import Foundation
import LatchkeyAPI
import LatchkeyCore

extension SQLAuthStore {
    public func listUsers(emailContains: String?, anonymous: Bool?, offset: Int, limit: Int) async throws
        -> (users: [UserRecord], total: Int)
    {
        try await database.read { db in
            var conditions: [String] = []
            var binds: [SQLValue] = []
            if let emailContains, !emailContains.isEmpty {
                // LIKE's wildcards in the filter are matched literally.
                let escaped = emailContains.lowercased().replacingOccurrences(of: "\\", with: "\\\\")
                    .replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
                conditions.append("email LIKE ? ESCAPE '\\'")
                binds.append(.text("%" + escaped + "%"))
            }
            if let anonymous {
                conditions.append("is_anonymous = ?")
                binds.append(SQLValue(anonymous))
            }
            let condition = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
            let total = try await db.query("SELECT COUNT(*) AS n FROM users" + condition, binds).first?.int("n") ?? 0
            let users = try await db.query(
                "SELECT \(Self.userColumns) FROM users\(condition) ORDER BY created_at DESC, id LIMIT ? OFFSET ?",
                binds + [SQLValue(limit), SQLValue(offset)]
            ).compactMap(Self.user)
            return (users, Int(total))
        }
    }

    public func deleteUser(id: UUID, audit: [AuditEvent]) async throws -> Bool {
        try await database.transaction { db in
            let deleted = !(try await db.query("DELETE FROM users WHERE id = ? RETURNING id", [SQLValue(id)]).isEmpty)
            if deleted { try await Self.insert(audit, db) }
            return deleted
        }
    }

    public func deleteAccount(userID: UUID, version: Int64, sessionID: UUID, audit: [AuditEvent]) async throws -> Bool {
        try await database.transaction { db in
            let deleted = try await db.query(
                """
                DELETE FROM users WHERE id = ? AND version = ?
                AND EXISTS (SELECT 1 FROM sessions WHERE sessions.id = ? AND sessions.user_id = users.id)
                RETURNING id
                """, [SQLValue(userID), .int(version), SQLValue(sessionID)])
            guard !deleted.isEmpty else { return false }
            try await Self.insert(audit, db)
            return true
        }
    }

    public func adminUpdateUser(_ user: UserRecord, endSessions: Bool, audit: [AuditEvent]) async throws {
        try await translating {
            try await database.transaction { db in
                try await Self.update(user, db)
                if let email = user.email {
                    try await Self.upsertIdentity(userID: user.id, provider: "email", value: email, now: user.updatedAt, db)
                }
                if let phone = user.phone {
                    try await Self.upsertIdentity(userID: user.id, provider: "phone", value: phone, now: user.updatedAt, db)
                }
                if endSessions { try await Self.deleteSessions(userID: user.id, except: nil, db) }
                try await Self.insert(audit, db)
            }
        }
    }
}
