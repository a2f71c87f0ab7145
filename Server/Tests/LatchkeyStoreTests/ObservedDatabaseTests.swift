import Foundation
import LatchkeyAPI
import LatchkeyCore
import LatchkeyStore
import MetricsTestKit
import Testing

/// The metrics count what a transaction committed, never what it rolled back.
@Suite struct ObservedDatabaseTests {
    /// Runs `body` with a store over an ``ObservedDatabase`` on each database (SQLite on disk, and
    /// PostgreSQL when `LATCHKEY_TEST_DATABASE_URL` names one), and the metrics it records into.
    static func eachObservedStore(_ body: (SQLAuthStore, TestMetrics) async throws -> Void) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("observed-\(UUID().uuidString)/db.sqlite").path
        var databases: [(any SQLDatabase, TestPostgres?)] = [(try await SQLiteDatabase.open(path: path), nil)]
        if let postgres = try await TestPostgres.open() { databases.append((postgres.database, postgres)) }
        for (database, postgres) in databases {
            let metrics = TestMetrics()
            let store = SQLAuthStore(database: ObservedDatabase(database, metrics: AuthMetrics(factory: metrics)))
            do {
                try await store.migrate()
                try await body(store, metrics)
            } catch {
                try await database.close()
                throw error
            }
            try await database.close()
            try await postgres?.drop()
        }
    }

    static let signIns = [("method", "password"), ("outcome", "success")]

    @Test func aCommittedSignInCountsAndARolledBackOneDoesNot() async throws {
        try await Self.eachObservedStore { store, metrics in
            let (user, identity) = StoreContractTests.user("observed@example.com")
            try await store.createUser(
                user, identity: identity, token: nil, outbox: [],
                audit: [AuditContractTests.event(.userSignedUp, user: user.id).with(details: ["provider": "email"])])
            #expect(metrics.counterTotal(label: AuthMetrics.Name.signUps, dimensions: [("provider", "email")]) == 1)

            let taken = UUID()
            let session = SessionRecord(
                id: UUID(), userID: user.id, amr: [AuthenticationMethod(method: "password", timestamp: 0)], refreshSalt: [1, 2, 3],
                createdAt: Date(), updatedAt: Date())
            try await store.createSession(session, user: user, audit: [AuditContractTests.event(.login, user: user.id, id: taken)])
            #expect(metrics.counterTotal(label: AuthMetrics.Name.signIns, dimensions: Self.signIns) == 1)

            // The second sign-in's event collides with the first's: the transaction rolls back, and
            // neither its sign-in nor anything else it stored is counted.
            let again = SessionRecord(
                id: UUID(), userID: user.id, amr: session.amr, refreshSalt: [4], createdAt: Date(), updatedAt: Date())
            await #expect(throws: (any Error).self) {
                try await store.createSession(again, user: user, audit: [AuditContractTests.event(.login, user: user.id, id: taken)])
            }
            #expect(metrics.counterTotal(label: AuthMetrics.Name.signIns, dimensions: Self.signIns) == 1)
            #expect(try await store.session(id: again.id) == nil)

            // Every write transaction is timed, by outcome.
            let committed = try metrics.expectTimer(AuthMetrics.Name.transactionDuration, [("outcome", "committed")])
            let failed = try metrics.expectTimer(AuthMetrics.Name.transactionDuration, [("outcome", "failed")])
            #expect(committed.values.count >= 3 && failed.values.count == 1)
            #expect(committed.values.allSatisfy { $0 > 0 })

            // A refused password and a lock-out, appended on their own, count once each.
            try await store.appendAudit([
                AuditContractTests.event(.loginFailed, user: user.id),
                AuditContractTests.event(.lockout, user: user.id).with(details: ["kind": "password"]),
            ])
            #expect(
                metrics.counterTotal(label: AuthMetrics.Name.signIns, dimensions: [("method", "password"), ("outcome", "failure")]) == 1)
            #expect(metrics.counterTotal(label: AuthMetrics.Name.lockouts, dimensions: [("kind", "password")]) == 1)
        }
    }
}

extension AuditEvent {
    func with(details: [String: JSONValue]) -> AuditEvent {
        var copy = self
        copy.details = details
        return copy
    }
}
