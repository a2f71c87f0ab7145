import Foundation
import LatchkeyAPI
import LatchkeyCore

extension SQLAuthStore {
    static let webhookColumns = "id, url, sealed_secret, events, source, created_at"

    /// Queues, in the caller's transaction, one `webhook` outbox row per endpoint for each audit
    /// event that announces something (``WebhookEventType``): the event is delivered if and only
    /// if the change it records commits, and a restart loses none.
    static func queueWebhooks(for events: [AuditEvent], _ db: any SQLExecutor) async throws {
        let announced = events.compactMap { event in WebhookEventType(event.action).map { (event, $0) } }
        guard !announced.isEmpty else { return }
        let endpoints = try await db.query("SELECT id, events FROM webhook_endpoints", []).compactMap { row in
            row.uuid("id").map { ($0, Self.eventTypes(row.string("events"))) }
        }
        guard !endpoints.isEmpty else { return }
        for (event, type) in announced {
            let payload = type.payload(announcing: event)
            for (endpoint, types) in endpoints where types.isEmpty || types.contains(type) {
                try await db.query(
                    "INSERT INTO outbox (\(outboxColumns)) VALUES (\(placeholders(8)))",
                    [
                        SQLValue(UUID()), .text(OutboxRecord.Channel.webhook.rawValue), SQLValue(endpoint), .text(payload),
                        SQLValue(0), SQLValue(event.createdAt), SQLValue(nil as String?), SQLValue(event.createdAt),
                    ])
            }
        }
    }

    static func eventTypes(_ text: String?) -> [WebhookEventType] {
        (text ?? "").split(separator: ",").compactMap { WebhookEventType(rawValue: String($0)) }
    }

    static func webhookEndpoint(from row: SQLRow) -> WebhookEndpointRecord? {
        guard let id = row.uuid("id"), let url = row.string("url"), let sealed = row.string("sealed_secret"),
            let source = row.string("source").flatMap(WebhookEndpointRecord.Source.init(rawValue:)), let created = row.date("created_at")
        else { return nil }
        return WebhookEndpointRecord(
            id: id, url: url, sealedSecret: sealed, events: eventTypes(row.string("events")), source: source, createdAt: created)
    }

    public func webhookEndpoints() async throws -> [WebhookEndpointRecord] {
        try await database.read { db in
            try await db.query("SELECT \(Self.webhookColumns) FROM webhook_endpoints ORDER BY created_at, id", []).compactMap(
                Self.webhookEndpoint)
        }
    }

    public func webhookEndpoint(id: UUID) async throws -> WebhookEndpointRecord? {
        try await database.read { db in
            try await db.query("SELECT \(Self.webhookColumns) FROM webhook_endpoints WHERE id = ?", [SQLValue(id)]).first.flatMap(
                Self.webhookEndpoint)
        }
    }

    public func saveWebhookEndpoint(_ endpoint: WebhookEndpointRecord) async throws {
        try await database.transaction { db in
            try await db.query(
                """
                INSERT INTO webhook_endpoints (\(Self.webhookColumns)) VALUES (\(Self.placeholders(6)))
                ON CONFLICT (id) DO UPDATE SET url = excluded.url, sealed_secret = excluded.sealed_secret, events = excluded.events
                """,
                [
                    SQLValue(endpoint.id), .text(endpoint.url), .text(endpoint.sealedSecret),
                    .text(endpoint.events.map(\.rawValue).joined(separator: ",")), .text(endpoint.source.rawValue),
                    SQLValue(endpoint.createdAt),
                ])
        }
    }

    public func deleteWebhookEndpoint(id: UUID) async throws -> Bool {
        try await database.transaction { db in
            let deleted = try await db.query("DELETE FROM webhook_endpoints WHERE id = ? RETURNING id", [SQLValue(id)])
            guard !deleted.isEmpty else { return false }
            try await db.query(
                """
                UPDATE outbox SET failed_at = ?, last_error = 'endpoint removed', locked_until = NULL
                WHERE channel = 'webhook' AND recipient = ? AND \(Self.pendingOutbox)
                """, [SQLValue(Date()), .text(id.lowercasedString)])
            return true
        }
    }

    public func webhookDeliveries(endpointID: UUID?, state: WebhookDelivery.State?, limit: Int) async throws -> [WebhookDelivery] {
        try await database.read { db in
            var conditions = ["channel = 'webhook'"]
            var binds: [SQLValue] = []
            if let endpointID {
                conditions.append("recipient = ?")
                binds.append(SQLValue(endpointID))
            }
            switch state {
            case .pending: conditions.append(Self.pendingOutbox)
            case .delivered: conditions.append("sent_at IS NOT NULL")
            case .failed: conditions.append("failed_at IS NOT NULL")
            case nil: break
            }
            return try await db.query(
                """
                SELECT id, recipient, payload, attempts, last_error, created_at, next_attempt_at, sent_at, failed_at FROM outbox
                WHERE \(conditions.joined(separator: " AND ")) ORDER BY created_at DESC, id LIMIT ?
                """, binds + [SQLValue(limit)]
            ).compactMap { row in
                guard let id = row.uuid("id"), let endpoint = row.uuid("recipient"), let created = row.date("created_at"),
                    let next = row.date("next_attempt_at")
                else { return nil }
                let state: WebhookDelivery.State =
                    row.date("sent_at") != nil ? .delivered : row.date("failed_at") != nil ? .failed : .pending
                let type = JSONText.decodeObject(row.string("payload") ?? "")?["type"]?.stringValue ?? ""
                return WebhookDelivery(
                    id: id, endpointID: endpoint, type: type, state: state, attempts: Int(row.int("attempts") ?? 0),
                    lastError: row.string("last_error"), createdAt: created, nextAttemptAt: next)
            }
        }
    }

    public func replayWebhookDeliveries(ids: [UUID], now: Date) async throws -> [UUID] {
        guard !ids.isEmpty else { return [] }
        return try await database.transaction { db in
            var replayed: [UUID] = []
            for id in ids {
                let rows = try await db.query(
                    """
                    UPDATE outbox SET sent_at = NULL, failed_at = NULL, attempts = 0, next_attempt_at = ?, last_error = NULL,
                    locked_until = NULL WHERE id = ? AND channel = 'webhook' AND payload <> ''
                    AND (sent_at IS NOT NULL OR failed_at IS NOT NULL)
                    AND recipient IN (SELECT id FROM webhook_endpoints) RETURNING id
                    """, [SQLValue(now), SQLValue(id)])
                if !rows.isEmpty { replayed.append(id) }
            }
            return replayed
        }
    }
}
