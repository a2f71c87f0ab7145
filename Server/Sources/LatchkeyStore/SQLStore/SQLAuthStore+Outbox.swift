import Foundation
import LatchkeyCore

extension SQLAuthStore {
    static let outboxColumns = "id, channel, recipient, payload, attempts, next_attempt_at, last_error, created_at"

    /// Queues `records`; with no mail transport, files each in the development mailbox at once
    /// (a message that cannot be opened is queued, and the outbox gives it up).
    func insertOutbox(_ records: [OutboxRecord], _ db: any SQLExecutor) async throws {
        var queued: [OutboxRecord] = []
        for record in records {
            if let devMailboxSealer, let message = record.message ?? (try? devMailboxSealer.open(record.payload)) {
                try await Self.insertMailbox(message, at: record.createdAt, db)
            } else {
                queued.append(record)
            }
        }
        try await Self.insert(queued, db)
    }

    static func insert(_ records: [OutboxRecord], _ db: any SQLExecutor) async throws {
        for record in records {
            try await db.query(
                "INSERT INTO outbox (\(outboxColumns)) VALUES (\(placeholders(8)))",
                [
                    SQLValue(record.id), .text(record.channel.rawValue), .text(record.recipient), .text(record.payload),
                    SQLValue(record.attempts), SQLValue(record.nextAttemptAt), SQLValue(record.lastError),
                    SQLValue(record.createdAt),
                ])
        }
    }

    static func outboxRecord(from row: SQLRow) -> OutboxRecord? {
        guard let id = row.uuid("id"), let channel = row.string("channel").flatMap(OutboxRecord.Channel.init(rawValue:)),
            let next = row.date("next_attempt_at"), let created = row.date("created_at")
        else { return nil }
        return OutboxRecord(
            id: id, channel: channel, recipient: row.string("recipient") ?? "", payload: row.string("payload") ?? "",
            attempts: Int(row.int("attempts") ?? 0), nextAttemptAt: next, createdAt: created, lastError: row.string("last_error"))
    }

    /// Pending: neither sent nor given up on.
    static let pendingOutbox = "sent_at IS NULL AND failed_at IS NULL"

    public func enqueueOutbox(_ records: [OutboxRecord]) async throws {
        guard !records.isEmpty else { return }
        try await database.transaction { db in try await insertOutbox(records, db) }
    }

    public func claimOutbox(now: Date, leaseUntil: Date, limit: Int, channel: OutboxRecord.Channel) async throws -> [OutboxRecord] {
        try await database.claimTransaction { db in
            try await Self.claimOutbox(now: now, leaseUntil: leaseUntil, limit: limit, channel: channel, claim: database.claimClause, db)
        }
    }

    public func claimIntoMailbox(
        now: Date, leaseUntil: Date, limit: Int, open: @escaping @Sendable (OutboxRecord) -> EmailMessage?
    ) async throws -> ClaimedDelivery {
        try await database.claimTransaction { db in
            var delivery = ClaimedDelivery(delivered: 0, unread: [])
            for record in try await Self.claimOutbox(
                now: now, leaseUntil: leaseUntil, limit: limit, channel: .email, claim: database.claimClause, db)
            {
                guard let message = open(record) else {
                    delivery.unread.append(record)
                    continue
                }
                try await Self.insertMailbox(message, at: now, db)
                try await Self.markSent(record.id, at: now, db)
                delivery.delivered += 1
            }
            return delivery
        }
    }

    static func claimOutbox(
        now: Date, leaseUntil: Date, limit: Int, channel: OutboxRecord.Channel, claim: String, _ db: any SQLExecutor
    ) async throws -> [OutboxRecord] {
        let due = try await db.query(
            """
            SELECT id FROM outbox WHERE \(Self.pendingOutbox) AND next_attempt_at <= ?
            AND (locked_until IS NULL OR locked_until <= ?) AND channel = ? ORDER BY next_attempt_at, created_at LIMIT ?\(claim)
            """, [SQLValue(now), SQLValue(now), .text(channel.rawValue), SQLValue(limit)])
        var claimed: [OutboxRecord] = []
        for row in due {
            // The condition is checked again: another instance may have claimed it meanwhile.
            let rows = try await db.query(
                """
                UPDATE outbox SET locked_until = ? WHERE id = ? AND \(Self.pendingOutbox)
                AND (locked_until IS NULL OR locked_until <= ?) RETURNING \(Self.outboxColumns)
                """, [SQLValue(leaseUntil), .text(row.string("id") ?? ""), SQLValue(now)])
            if let record = rows.first.flatMap(Self.outboxRecord) { claimed.append(record) }
        }
        return claimed
    }

    public func finishOutbox(id: UUID, outcome: OutboxOutcome) async throws {
        try await database.transaction { db in
            switch outcome {
            case .sent(let at):
                try await Self.markSent(id, at: at, db)
            case .retry(let attempts, let next, let error):
                try await db.query(
                    "UPDATE outbox SET attempts = ?, next_attempt_at = ?, last_error = ?, locked_until = NULL WHERE id = ?",
                    [SQLValue(attempts), SQLValue(next), .text(String(error.prefix(1000))), SQLValue(id)])
            case .failed(let attempts, let at, let error):
                try await db.query(
                    """
                    UPDATE outbox SET attempts = ?, failed_at = ?, payload = \(Self.erasedPayload), last_error = ?, locked_until = NULL
                    WHERE id = ?
                    """,
                    [SQLValue(attempts), SQLValue(at), .text(String(error.prefix(1000))), SQLValue(id)])
            }
        }
    }

    /// A message handed over: its sealed payload erased, its lease ended.
    static func markSent(_ id: UUID, at date: Date, _ db: any SQLExecutor) async throws {
        try await db.query(
            """
            UPDATE outbox SET sent_at = ?, payload = \(Self.erasedPayload), attempts = attempts + 1, locked_until = NULL,
            last_error = NULL WHERE id = ?
            """,
            [SQLValue(date), SQLValue(id)])
    }

    /// What a finished message keeps of its payload: nothing for an email (it carries codes), the
    /// event for a webhook (to replay it).
    static let erasedPayload = "CASE WHEN channel = 'webhook' THEN payload ELSE '' END"

    public func nextOutboxAttempt() async throws -> Date? {
        try await database.read { db in
            let rows = try await db.query(
                """
                SELECT MIN(CASE WHEN locked_until IS NOT NULL AND locked_until > next_attempt_at THEN locked_until
                ELSE next_attempt_at END) AS due FROM outbox WHERE \(Self.pendingOutbox)
                """, [])
            return rows.first?.date("due")
        }
    }

    /// How many messages wait to be delivered (retries included) and when the oldest was queued,
    /// in one aggregate read: what the metrics sample at each scrape.
    public func outboxBacklog() async throws -> (count: Int, oldest: Date?) {
        try await database.read { db in
            let row = try await db.query(
                "SELECT COUNT(*) AS waiting, MIN(created_at) AS oldest FROM outbox WHERE \(Self.pendingOutbox)", []
            )
            .first
            return (Int(row?.int("waiting") ?? 0), row?.date("oldest"))
        }
    }

    /// How many sessions are stored, for the metrics' gauge.
    public func sessionCount() async throws -> Int {
        try await database.read { db in
            Int(try await db.query("SELECT COUNT(*) AS n FROM sessions", []).first?.int("n") ?? 0)
        }
    }

    public func pendingOutbox(limit: Int) async throws -> [OutboxRecord] {
        try await database.read { db in
            try await db.query(
                "SELECT \(Self.outboxColumns) FROM outbox WHERE \(Self.pendingOutbox) ORDER BY created_at LIMIT ?", [SQLValue(limit)]
            ).compactMap(Self.outboxRecord)
        }
    }
}
