import Foundation

/// Delivers email. The development mailbox is one implementation; SMTP is another.
public protocol Mailer: Sendable {
    /// Sends one message, or throws when it could not be handed over.
    func send(_ message: EmailMessage) async throws
}

/// A mailer that can take a whole claimed batch and record it sent in the same step (the
/// development mailbox, which lives in the store). Nothing of the batch stays delivered when it
/// throws.
public protocol BatchMailer: Mailer {
    func deliver(_ batch: [(record: OutboxRecord, message: EmailMessage)]) async throws
}

/// A mailer that claims due messages and delivers them in the same step (the development
/// mailbox: one transaction claims, files and marks sent, so a message is readable one commit
/// after the request that queued it).
public protocol ClaimingMailer: Mailer {
    /// Claims up to `limit` due messages; files those `open` can read and marks them sent, and
    /// returns the others claimed until `leaseUntil` for the one-at-a-time path.
    func claimAndDeliver(
        now: Date, leaseUntil: Date, limit: Int, open: @escaping @Sendable (OutboxRecord) -> EmailMessage?
    ) async throws -> ClaimedDelivery
}

/// What one claiming round did: how many messages it delivered, and the claimed ones it could not
/// read.
public struct ClaimedDelivery: Sendable {
    public var delivered: Int
    public var unread: [OutboxRecord]

    public init(delivered: Int, unread: [OutboxRecord]) {
        self.delivered = delivered
        self.unread = unread
    }
}

/// A mailer that keeps messages in the store's development mailbox, for when no transport is
/// configured.
public struct DevMailbox: Mailer {
    let store: any DevMailboxStore
    let time: any TimeSource

    public init(store: any DevMailboxStore, time: any TimeSource) {
        self.store = store
        self.time = time
    }

    public func send(_ message: EmailMessage) async throws {
        try await store.appendMailbox(message, at: time.now())
    }
}

extension DevMailbox: ClaimingMailer {
    public func claimAndDeliver(
        now: Date, leaseUntil: Date, limit: Int, open: @escaping @Sendable (OutboxRecord) -> EmailMessage?
    ) async throws -> ClaimedDelivery {
        try await store.claimIntoMailbox(now: now, leaseUntil: leaseUntil, limit: limit, open: open)
    }
}

extension DevMailbox: BatchMailer {
    /// Files the batch and marks it sent in one transaction.
    public func deliver(_ batch: [(record: OutboxRecord, message: EmailMessage)]) async throws {
        try await store.deliverToMailbox(batch.map { ($0.record.id, $0.message) }, at: time.now())
    }
}
