import Foundation
import Synchronization

extension InMemoryStore: OutboxStore {
    public func claimOutbox(now: Date, leaseUntil: Date, limit: Int, channel: OutboxRecord.Channel) async throws -> [OutboxRecord] {
        state.withLock { state in
            let due = state.outbox.indices.filter { index in
                let record = state.outbox[index]
                return record.channel == channel && !state.outboxFinished.contains(record.id) && record.nextAttemptAt <= now
                    && (state.outboxLeases[record.id].map { $0 <= now } ?? true)
            }
            .sorted {
                (state.outbox[$0].nextAttemptAt, state.outbox[$0].createdAt) < (state.outbox[$1].nextAttemptAt, state.outbox[$1].createdAt)
            }
            return due.prefix(max(0, limit)).map { index in
                state.outboxLeases[state.outbox[index].id] = leaseUntil
                var claimed = state.outbox[index]
                claimed.message = nil  // a record read back from a store carries no message
                return claimed
            }
        }
    }

    public func finishOutbox(id: UUID, outcome: OutboxOutcome) async throws {
        state.withLock { state in
            guard let index = state.outbox.firstIndex(where: { $0.id == id }) else { return }
            state.outboxLeases[id] = nil
            var record = state.outbox[index]
            switch outcome {
            case .sent:
                record.attempts += 1
                record.lastError = nil
                state.outboxFinished.insert(id)
            case .retry(let attempts, let next, let error):
                record.attempts = attempts
                record.nextAttemptAt = next
                record.lastError = String(error.prefix(1000))
            case .failed(let attempts, _, let error):
                record.attempts = attempts
                record.lastError = String(error.prefix(1000))
                state.outboxFinished.insert(id)
                state.outboxFailed.insert(id)
            }
            // An email's payload carries codes: erased once finished. A webhook event is kept for replays.
            if state.outboxFinished.contains(id), record.channel == .email { record.payload = "" }
            state.outbox[index] = record
        }
    }

    public func nextOutboxAttempt() async throws -> Date? {
        state.withLock { state in
            state.outbox.filter { !state.outboxFinished.contains($0.id) }.map { record in
                state.outboxLeases[record.id].map { max($0, record.nextAttemptAt) } ?? record.nextAttemptAt
            }.min()
        }
    }

    public func pendingOutbox(limit: Int) async throws -> [OutboxRecord] {
        state.withLock { state in
            Array(
                state.outbox.filter { !state.outboxFinished.contains($0.id) }.sorted { $0.createdAt < $1.createdAt }.prefix(max(0, limit)))
        }
    }
}
