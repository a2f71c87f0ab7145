import Foundation

/// What ``OutboxDelivery`` needs of the store: queued messages claimed under a lease, the outcome
/// of each attempt, and when the next one is due. `SQLAuthStore` serves it (`+Outbox.swift`),
/// `InMemoryStore` too; `OutboxContractTests` holds all three to one contract.
public protocol OutboxStore: Sendable {
    /// Queues `records` (the use cases queue theirs in the transaction of the change they announce).
    func enqueueOutbox(_ records: [OutboxRecord]) async throws
    /// Reserves up to `limit` pending messages of `channel` due at `now` whose lease (if any) has
    /// ended, until `leaseUntil`, oldest due first. Two callers never get the same message while
    /// its lease runs.
    func claimOutbox(now: Date, leaseUntil: Date, limit: Int, channel: OutboxRecord.Channel) async throws -> [OutboxRecord]
    /// Records how an attempt at a claimed message ended, and ends its lease.
    func finishOutbox(id: UUID, outcome: OutboxOutcome) async throws
    /// When the earliest pending message is due or its lease ends, if any is pending.
    func nextOutboxAttempt() async throws -> Date?
    /// Pending messages, oldest first, for operators.
    func pendingOutbox(limit: Int) async throws -> [OutboxRecord]
}

extension OutboxStore {
    /// Reserves pending emails (``claimOutbox(now:leaseUntil:limit:channel:)`` on `email`).
    public func claimOutbox(now: Date, leaseUntil: Date, limit: Int) async throws -> [OutboxRecord] {
        try await claimOutbox(now: now, leaseUntil: leaseUntil, limit: limit, channel: .email)
    }
}
