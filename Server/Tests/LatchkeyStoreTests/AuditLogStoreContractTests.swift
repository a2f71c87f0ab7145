import Foundation
import LatchkeyCore
import LatchkeyStore
import Testing

/// The contract of ``AuditLogStore``, held against the in-memory store, SQLite and PostgreSQL
/// (when `LATCHKEY_TEST_DATABASE_URL` names a server): filters, newest-first order (events of
/// one instant latest-recorded first), the total, paging and retention.
@Suite struct AuditLogStoreContractTests {
    static func eachStore(_ body: (any AuditLogStore) async throws -> Void) async throws {
        try await StoreContractTests.eachStore(memory: InMemoryStore() as any AuditLogStore, body)
    }

    static func event(_ action: AuditAction, user: UUID?, at date: Date) -> AuditEvent {
        AuditEvent(action: action, actorID: user, actorName: "test", userID: user, ip: "192.0.2.1", userAgent: nil, createdAt: date)
    }

    @Test func filtersOrderTotalsAndPages() async throws {
        try await Self.eachStore { store in
            let ada = UUID()
            let bob = UUID()
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            let events = [
                Self.event(.login, user: ada, at: start),
                Self.event(.loginFailed, user: bob, at: start.addingTimeInterval(1)),
                Self.event(.logout, user: ada, at: start.addingTimeInterval(2)),
                // Two of one instant: the later recorded comes first.
                Self.event(.login, user: bob, at: start.addingTimeInterval(3)),
                Self.event(.lockout, user: bob, at: start.addingTimeInterval(3)),
            ]
            try await store.appendAudit(Array(events[0..<3]))
            try await store.appendAudit(Array(events[3...]))
            let all = try await store.auditEvents(AuditQuery(limit: 10))
            #expect(all.total == 5)
            #expect(all.events.map(\.id) == [events[4].id, events[3].id, events[2].id, events[1].id, events[0].id])
            #expect(all.events.first == events[4])
            let adas = try await store.auditEvents(AuditQuery(userID: ada))
            #expect(adas.events.map(\.action) == [.logout, .login] && adas.total == 2)
            let logins = try await store.auditEvents(AuditQuery(actions: [.login, .lockout]))
            #expect(logins.events.map(\.id) == [events[4].id, events[3].id, events[0].id])
            let recent = try await store.auditEvents(AuditQuery(since: start.addingTimeInterval(2)))
            #expect(recent.total == 3)
            let second = try await store.auditEvents(AuditQuery(offset: 2, limit: 2))
            #expect(second.events.map(\.id) == [events[2].id, events[1].id] && second.total == 5)
            #expect(try await store.auditEvents(AuditQuery(userID: UUID())).total == 0)
            // Retention: everything before the instant goes, the rest stays.
            #expect(try await store.deleteAuditEvents(before: start.addingTimeInterval(2)) == 2)
            #expect(try await store.auditEvents(AuditQuery()).total == 3)
        }
    }
}
