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

/// A mailer that keeps messages in the store's development mailbox, for when no transport is
/// configured.
public struct DevMailbox: Mailer {
    let store: any AuthStore
    let time: any TimeSource

    public init(store: any AuthStore, time: any TimeSource) {
        self.store = store
        self.time = time
    }

    public func send(_ message: EmailMessage) async throws {
        try await store.appendMailbox(message, at: time.now())
    }
}

extension DevMailbox: BatchMailer {
    /// Files the batch and marks it sent in one transaction.
    public func deliver(_ batch: [(record: OutboxRecord, message: EmailMessage)]) async throws {
        try await store.deliverToMailbox(batch.map { ($0.record.id, $0.message) }, at: time.now())
    }
}
