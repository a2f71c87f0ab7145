import Foundation
import LatchkeyStore
import Logging

/// A PostgreSQL schema of its own for one test, on the server `LATCHKEY_TEST_DATABASE_URL`
/// names (`scripts/test` starts one when PostgreSQL is installed).
struct TestPostgres {
    let database: PostgresDatabase
    let url: URL

    static var url: URL? {
        ProcessInfo.processInfo.environment["LATCHKEY_TEST_DATABASE_URL"].flatMap { $0.isEmpty ? nil : URL(string: $0) }
    }

    /// A fresh schema, or `nil` when no server is configured.
    static func open(poolSize: Int = 4, preparedStatements: Bool = true) async throws -> TestPostgres? {
        guard let url else { return nil }
        let schema = "t_" + UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: "")
        var logger = Logger(label: "latchkey-test-pg")
        logger.logLevel = .error
        var options = PostgresDatabase.Options(url: url, schema: schema, poolSize: poolSize)
        options.preparedStatements = preparedStatements
        let database = try await PostgresDatabase.open(options, logger: logger)
        return TestPostgres(database: database, url: url)
    }

    /// Drops the schema with everything in it.
    func drop() async throws {
        let cleaner = try await PostgresDatabase.open(.init(url: url, schema: database.schema, poolSize: 1))
        _ = try await cleaner.read { try await $0.query("DROP SCHEMA \(database.schema) CASCADE", []) }
        try await cleaner.close()
    }
}
