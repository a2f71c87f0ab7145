import Foundation
import Synchronization

extension InMemoryStore: AuditLogStore {
    public func auditEvents(_ query: AuditQuery) async throws -> (events: [AuditEvent], total: Int) {
        state.withLock { state in
            let matching = state.events.enumerated().filter { _, event in
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
        state.withLock { state in
            let before = state.events.count
            state.events.removeAll { $0.createdAt < date }
            return before - state.events.count
        }
    }
}
