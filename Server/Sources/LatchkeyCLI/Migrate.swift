import ArgumentParser
import Foundation
import LatchkeyServer
import LatchkeyStore

/// `latchkey migrate`: applies the schema and lists the migrations.
struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Apply database migrations and list them.")

    @OptionGroup var data: DataOptions

    func run() async throws {
        let configuration = try ServerConfiguration.load(environment: ProcessInfo.processInfo.environment, overrides: data.overrides)
        let database = try await SQLiteDatabase.open(path: configuration.databasePath)
        let store = SQLAuthStore(database: database)
        try await store.migrate()
        print("SQLite at \(configuration.databasePath)")
        for migration in try await store.appliedMigrations() {
            print("  applied \(migration.version): \(migration.name)")
        }
        try await database.close()
    }
}
