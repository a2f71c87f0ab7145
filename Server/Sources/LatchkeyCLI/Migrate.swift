import ArgumentParser
import Foundation
import LatchkeyServer
import LatchkeyStore
import Logging

/// `latchkey migrate`: applies the schema and lists the migrations.
struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Apply database migrations and list them.")

    @OptionGroup var data: DataOptions

    func run() async throws {
        let configuration = try ServerConfiguration.load(environment: ProcessInfo.processInfo.environment, overrides: data.overrides)
        var logger = Logger(label: "latchkey")
        logger.logLevel = .warning
        let database = try await openDatabase(configuration, readers: 1, logger: logger)
        let store = SQLAuthStore(database: database)
        try await store.migrate()
        print(configuration.storeDescription)
        for migration in try await store.appliedMigrations() {
            print("  applied \(migration.version): \(migration.name)")
        }
        try await database.close()
    }
}
