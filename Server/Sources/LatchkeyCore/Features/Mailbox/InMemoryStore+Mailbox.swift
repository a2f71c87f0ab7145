import Foundation
import Synchronization

extension InMemoryStore: DevMailboxStore {
    public func appendMailbox(_ message: EmailMessage, at date: Date) async throws {
        state.withLock { $0.mailbox.append(StoredEmail(id: UUID(), message: message, createdAt: date)) }
    }

    public func deliverToMailbox(_ deliveries: [(outboxID: UUID, message: EmailMessage)], at date: Date) async throws {
        for delivery in deliveries {
            try await appendMailbox(delivery.message, at: date)
            try await finishOutbox(id: delivery.outboxID, outcome: .sent(at: date))
        }
    }

    public func claimIntoMailbox(
        now: Date, leaseUntil: Date, limit: Int, open: @escaping @Sendable (OutboxRecord) -> EmailMessage?
    ) async throws -> ClaimedDelivery {
        var delivery = ClaimedDelivery(delivered: 0, unread: [])
        for record in try await claimOutbox(now: now, leaseUntil: leaseUntil, limit: limit, channel: .email) {
            guard let message = open(record) else {
                delivery.unread.append(record)
                continue
            }
            try await deliverToMailbox([(record.id, message)], at: now)
            delivery.delivered += 1
        }
        return delivery
    }

    public func mailbox(to address: String?, limit: Int) async throws -> [StoredEmail] {
        let wanted = address?.lowercased()
        return state.withLock { state in
            Array(
                state.mailbox.reversed().filter { stored in wanted.map { w in stored.message.to.contains { $0.lowercased() == w } } ?? true
                }
                .prefix(max(0, limit)))
        }
    }
}
