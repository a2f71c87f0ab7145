import Foundation
import Synchronization

/// ``AuditLogStore`` in memory, one step under a lock per call, for unit tests; the contract
/// suite holds it to the SQL stores' order and filters.
public final class InMemoryAuditLogStore: AuditLogStore {
    /// Events in the order they were recorded.
    private let events = Mutex<[AuditEvent]>([])

    public init() {}

    public func appendAudit(_ events: [AuditEvent]) async throws {
        self.events.withLock { $0 += events }
    }

    public func auditEvents(_ query: AuditQuery) async throws -> (events: [AuditEvent], total: Int) {
        events.withLock { events in
            let matching = events.enumerated().filter { _, event in
                (query.userID == nil || event.userID == query.userID)
                    && (query.actions.isEmpty || query.actions.contains(event.action))
                    && (query.since.map { event.createdAt >= $0 } ?? true)
            }
            let newestFirst = matching.sorted { a, b in
                a.element.createdAt != b.element.createdAt ? a.element.createdAt > b.element.createdAt : a.offset > b.offset
            }
            return (Array(newestFirst.dropFirst(query.offset).prefix(query.limit).map(\.element)), matching.count)
        }
    }

    public func deleteAuditEvents(before date: Date) async throws -> Int {
        events.withLock { events in
            let before = events.count
            events.removeAll { $0.createdAt < date }
            return before - events.count
        }
    }
}
