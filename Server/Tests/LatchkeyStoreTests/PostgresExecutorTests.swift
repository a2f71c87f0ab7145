import Foundation
import Testing

@testable import LatchkeyStore

@Suite struct PostgresExecutorTests {
    @Test(arguments: [
        ("SELECT 1", "SELECT 1"),
        ("a = ? AND b = ?", "a = $1 AND b = $2"),
        ("x = '?' AND y = ?", "x = '?' AND y = $1"),
        ("name = 'it''s ?' OR n = ?", "name = 'it''s ?' OR n = $1"),
        ("é = ? AND ü = '?é' AND z = ?", "é = $1 AND ü = '?é' AND z = $2"),
        (String(repeating: "?,", count: 11) + "?", (1...12).map { "$\($0)" }.joined(separator: ",")),
    ])
    func placeholdersAreNumberedOutsideQuotes(sql: String, expected: String) {
        #expect(PostgresExecutor.numbered(sql) == expected)
    }

    /// A read's and a transaction's statements run on their connection's event loop, so a
    /// statement and its answer never cross threads (fails when the body runs on the
    /// cooperative pool).
    @Test func statementsRunOnTheConnectionsEventLoop() async throws {
        guard let postgres = try await TestPostgres.open(poolSize: 2) else { return }
        let database = postgres.database
        let inRead = try await database.read { db in
            _ = try await db.query("SELECT 1 AS one", [])
            return (db as? PostgresExecutor)?.isOnConnectionsEventLoop
        }
        let inTransaction = try await database.transaction { db in
            _ = try await db.query("SELECT 1 AS one", [])
            let first = (db as? PostgresExecutor)?.isOnConnectionsEventLoop
            _ = try await db.query("SELECT 2 AS two", [])
            return first == true && (db as? PostgresExecutor)?.isOnConnectionsEventLoop == true
        }
        #expect(inRead == true)
        #expect(inTransaction)
        try await postgres.drop()
        try await database.close()
    }

    /// A statement with parameters is prepared once on a connection and then only executed (one
    /// named statement however often it runs, and another for each other pattern of types);
    /// with the option off, none is.
    @Test(arguments: [true, false])
    func statementsWithParametersArePreparedOncePerConnection(preparing: Bool) async throws {
        guard let postgres = try await TestPostgres.open(poolSize: 1, preparedStatements: preparing) else { return }
        let database = postgres.database
        for value in [SQLValue.int(1), .int(2), .text("three"), .null, .int(5), .text("six")] {
            let row = try await database.read { try await $0.query("SELECT ? AS n", [value]) }.first
            switch value {
            case .int(let number): #expect(row?.int("n") == number)
            case .text(let text): #expect(row?.string("n") == text)
            case .null: #expect(row?.string("n") == nil && row?.int("n") == nil)
            }
        }
        let named = try await database.read { db in
            try await db.query("SELECT count(*) AS n FROM pg_prepared_statements", []).first?.int("n")
        }
        // One for integers, one for text, one for NULL.
        #expect(named == (preparing ? 3 : 0))
        try await postgres.drop()
        try await database.close()
    }
}
