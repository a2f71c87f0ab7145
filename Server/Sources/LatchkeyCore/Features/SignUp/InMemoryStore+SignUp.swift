import Foundation
import Synchronization

extension InMemoryStore: SignUpStore {
    public func enqueueOutbox(_ records: [OutboxRecord]) async throws {
        state.withLock { $0.outbox += records }
    }
}
