import Foundation
import LatchkeyCore

extension SQLAuthStore {
    static let auditColumns = "id, action, log_type, actor_id, actor_name, user_id, ip, user_agent, details, created_at"

    /// Writes audit events inside the caller's transaction, with the webhook deliveries that
    /// announce them.
    static func insert(_ events: [AuditEvent], _ db: any SQLExecutor) async throws {
        for (position, event) in events.enumerated() {
            try await db.query(
                "INSERT INTO audit_log (\(auditColumns), seq) VALUES (\(placeholders(11)))",
                [
                    SQLValue(event.id), .text(event.action.rawValue), .text(event.action.logType),
                    SQLValue(event.actorID.map { $0.lowercasedString }),
                    .text(event.actorName), SQLValue(event.userID.map { $0.lowercasedString }), SQLValue(event.ip),
                    SQLValue(event.userAgent),
                    .text(encode(event.details)), SQLValue(event.createdAt), SQLValue(position),
                ])
        }
        try await queueWebhooks(for: events, db)
        db.noteStored(events)
    }

    static func auditEvent(from row: SQLRow) -> AuditEvent? {
        guard let id = row.uuid("id"), let action = row.string("action").flatMap(AuditAction.init(rawValue:)),
            let created = row.date("created_at")
        else { return nil }
        return AuditEvent(
            id: id, action: action, actorID: row.uuid("actor_id"), actorName: row.string("actor_name") ?? "",
            userID: row.uuid("user_id"), ip: row.string("ip"), userAgent: row.string("user_agent"),
            details: decodeObject(row.string("details")), createdAt: created)
    }

    public func appendAudit(_ events: [AuditEvent]) async throws {
        guard !events.isEmpty else { return }
        try await database.transaction { db in try await Self.insert(events, db) }
    }

    public func deleteAuditEvents(before date: Date) async throws -> Int {
        try await database.transaction { db in
            try await db.query("DELETE FROM audit_log WHERE created_at < ? RETURNING id", [SQLValue(date)]).count
        }
    }

    public func auditEvents(_ query: AuditQuery) async throws -> (events: [AuditEvent], total: Int) {
        try await database.read { db in
            var conditions: [String] = []
            var binds: [SQLValue] = []
            if let userID = query.userID {
                conditions.append("user_id = ?")
                binds.append(SQLValue(userID))
            }
            if !query.actions.isEmpty {
                conditions.append("action IN (\(Self.placeholders(query.actions.count)))")
                binds += query.actions.map { .text($0.rawValue) }
            }
            if let since = query.since {
                conditions.append("created_at >= ?")
                binds.append(SQLValue(since))
            }
            let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
            let total = try await db.query("SELECT COUNT(*) AS n FROM audit_log" + filter, binds).first?.int("n") ?? 0
            let events = try await db.query(
                "SELECT \(Self.auditColumns) FROM audit_log\(filter) ORDER BY created_at DESC, seq DESC, id LIMIT ? OFFSET ?",
                binds + [SQLValue(query.limit), SQLValue(query.offset)]
            ).compactMap(Self.auditEvent)
            return (events, Int(total))
        }
    }
}

extension SQLAuthStore: HookStore {}
