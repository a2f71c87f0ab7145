import Foundation

/// The development mailbox, for when no mail transport is configured: what ``DevMailbox`` and
/// ``DevSMSOutbox`` file, `GET /_dev/mailbox` and `latchkey mailbox` read. `SQLAuthStore` serves it
/// (`+Maintenance.swift`), `InMemoryStore` too (`InMemoryStore+Mailbox.swift`).
public protocol DevMailboxStore: Sendable {
    func appendMailbox(_ message: EmailMessage, at date: Date) async throws
    /// Files claimed outbox messages in the development mailbox and marks them sent, all in one
    /// transaction: a batch costs one commit instead of two per message.
    func deliverToMailbox(_ deliveries: [(outboxID: UUID, message: EmailMessage)], at date: Date) async throws
    /// In one transaction: claims up to `limit` due outbox messages, files in the development
    /// mailbox and marks sent those `open` reads, and leaves the others claimed until
    /// `leaseUntil` (returned as `unread`).
    func claimIntoMailbox(
        now: Date, leaseUntil: Date, limit: Int, open: @escaping @Sendable (OutboxRecord) -> EmailMessage?
    ) async throws -> ClaimedDelivery
    /// Messages newest first, optionally only those to one address (case-insensitively).
    func mailbox(to address: String?, limit: Int) async throws -> [StoredEmail]
}
