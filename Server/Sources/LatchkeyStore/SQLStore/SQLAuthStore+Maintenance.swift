import Foundation
import LatchkeyCore

extension SQLAuthStore {
    public func incrementRateLimit(key: String, windowStart: Date, expiresAt: Date) async throws -> Int {
        try await incrementRateLimits([RateLimitCounter(key: key, windowStart: windowStart, expiresAt: expiresAt)])[0]
    }

    public func incrementRateLimits(_ counters: [RateLimitCounter]) async throws -> [Int] {
        guard !counters.isEmpty else { return [] }
        return try await database.lockingTransaction { db in try await Self.increment(counters, db) }
    }

    public func decrementRateLimit(key: String, windowStart: Date) async throws {
        try await database.lockingTransaction { db in
            try await db.query(
                "UPDATE rate_limits SET count = count - 1 WHERE key = ? AND window_start = ? AND count > 0",
                [.text(key), SQLValue(windowStart)])
        }
    }

    public func rateLimitCount(key: String, windowStart: Date) async throws -> Int {
        try await database.read { db in
            let rows = try await db.query(
                "SELECT count FROM rate_limits WHERE key = ? AND window_start = ?", [.text(key), SQLValue(windowStart)])
            return Int(rows.first?.int("count") ?? 0)
        }
    }

    public func appendMailbox(_ message: EmailMessage, at date: Date) async throws {
        try await database.transaction { db in try await Self.insertMailbox(message, at: date, db) }
    }

    public func deliverToMailbox(_ deliveries: [(outboxID: UUID, message: EmailMessage)], at date: Date) async throws {
        guard !deliveries.isEmpty else { return }
        try await database.transaction { db in
            for delivery in deliveries {
                try await Self.insertMailbox(delivery.message, at: date, db)
                try await Self.markSent(delivery.outboxID, at: date, db)
            }
        }
    }

    /// A message and its recipients in the development mailbox.
    static func insertMailbox(_ message: EmailMessage, at date: Date, _ db: any SQLExecutor) async throws {
        let recipients = JSONText.encode(message.to)
        let id = SystemRandomSource().orderedUUID(at: date)
        try await db.query(
            "INSERT INTO dev_mailbox (id, recipients, subject, text_body, html_body, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            [SQLValue(id), .text(recipients), .text(message.subject), .text(message.text), .text(message.html), SQLValue(date)])
        for address in Set(message.to.map(Self.mailboxAddress)) {
            try await db.query(
                "INSERT INTO dev_mailbox_recipients (message_id, address, created_at) VALUES (?, ?, ?)",
                [SQLValue(id), .text(address), SQLValue(date)])
        }
    }

    static let mailboxColumns = "m.id, m.recipients, m.subject, m.text_body, m.html_body, m.created_at"

    /// The newest messages to one address, read through `dev_mailbox_recipients_idx`.
    static let mailboxByRecipient = """
        SELECT \(mailboxColumns) FROM dev_mailbox_recipients r JOIN dev_mailbox m ON m.id = r.message_id
        WHERE r.address = ? ORDER BY r.created_at DESC LIMIT ?
        """

    /// How the mailbox files an address: canonical (NFKC, lower case), as lookups ask for it.
    static func mailboxAddress(_ address: String) -> String {
        EmailAddress.canonical(address) ?? address.lowercased()
    }

    public func mailbox(to address: String?, limit: Int) async throws -> [StoredEmail] {
        let limit = SQLValue(max(1, limit))
        let rows: [SQLRow]
        if let address {
            // Through the recipient index: a client waiting for its code reads only its own mail.
            let recipient = SQLValue.text(Self.mailboxAddress(address))
            rows = try await database.lookup { try await $0.query(Self.mailboxByRecipient, [recipient, limit]) }
        } else {
            rows = try await database.read {
                try await $0.query("SELECT \(Self.mailboxColumns) FROM dev_mailbox m ORDER BY m.created_at DESC LIMIT ?", [limit])
            }
        }
        return rows.compactMap { row in
            guard let id = row.uuid("id"), let created = row.date("created_at") else { return nil }
            let to = row.strings("recipients")
            return StoredEmail(
                id: id,
                message: EmailMessage(
                    to: to, subject: row.string("subject") ?? "", text: row.string("text_body") ?? "",
                    html: row.string("html_body") ?? ""), createdAt: created)
        }
    }

    public func deleteExpired(now: Date) async throws -> Int {
        try await database.transaction { db in
            let limits = try await db.query("DELETE FROM rate_limits WHERE expires_at <= ? RETURNING key", [SQLValue(now)])
            let tokens = try await db.query(
                "DELETE FROM one_time_tokens WHERE expires_at <= ? OR consumed_at IS NOT NULL RETURNING id",
                [SQLValue(now.addingTimeInterval(-3600))])
            let flows = try await db.query(
                "DELETE FROM flow_states WHERE expires_at <= ? OR consumed_at IS NOT NULL RETURNING id",
                [SQLValue(now.addingTimeInterval(-3600))])
            let finished = try await db.query(
                "DELETE FROM outbox WHERE (sent_at IS NOT NULL AND sent_at <= ?) OR (failed_at IS NOT NULL AND failed_at <= ?) RETURNING id",
                [SQLValue(now.addingTimeInterval(-7 * 86400)), SQLValue(now.addingTimeInterval(-7 * 86400))])
            let assertions = try await db.query(
                "DELETE FROM device_key_assertions WHERE expires_at <= ? RETURNING jti", [SQLValue(now)])
            // Challenges once expired, and factors enrolled but never verified within a day (GoTrue's cleanup).
            let challenges = try await db.query("DELETE FROM mfa_challenges WHERE expires_at <= ? RETURNING id", [SQLValue(now)])
            let unverified = try await db.query(
                "DELETE FROM mfa_factors WHERE status = 'unverified' AND created_at <= ? RETURNING id",
                [SQLValue(now.addingTimeInterval(-86400))])
            // The OAuth server's requests a day past their end (a spent code presented again within
            // that day still ends the session it made).
            let authorizations = try await db.query(
                "DELETE FROM oauth_authorizations WHERE expires_at <= ? RETURNING id", [SQLValue(now.addingTimeInterval(-86400))])
            return limits.count + tokens.count + flows.count + finished.count + assertions.count + challenges.count + unverified.count
                + authorizations.count
        }
    }
}
