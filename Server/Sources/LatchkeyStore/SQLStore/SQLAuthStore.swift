import Foundation
import LatchkeyAPI
import LatchkeyCore

/// The ``AuthStore`` over SQL, shared by every ``SQLDatabase`` driver.
public struct SQLAuthStore: AuthStore {
    public let database: any SQLDatabase
    /// With no mail transport, mail is filed in the development mailbox in the transaction that
    /// queues it (readable when the request answers) instead of going through the outbox; this
    /// opens its sealed payload.
    let devMailboxSealer: OutboxSealer?

    /// - Parameter devMailboxSealer: set when mail goes to the development mailbox, to file it in
    ///   the transaction that queues it.
    public init(database: any SQLDatabase, devMailboxSealer: OutboxSealer? = nil) {
        self.database = database
        self.devMailboxSealer = devMailboxSealer
    }

    /// Applies the migrations not applied yet, all in one transaction that concurrent
    /// instances take in turn.
    public func migrate() async throws {
        try await database.exclusiveTransaction { db in
            try await db.query(
                "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)",
                [])
            let applied = Set(try await db.query("SELECT version FROM schema_migrations", []).compactMap { $0.int("version") })
            for migration in Migrations.all where !applied.contains(Int64(migration.version)) {
                for statement in migration.statements { try await db.query(statement, []) }
                try await db.query(
                    "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                    [SQLValue(migration.version), SQLValue(migration.name), SQLValue(Date())])
            }
        }
    }

    /// The migrations applied, oldest first.
    public func appliedMigrations() async throws -> [(version: Int, name: String)] {
        try await database.read { db in
            try await db.query("SELECT version, name FROM schema_migrations ORDER BY version", []).map {
                (Int($0.int("version") ?? 0), $0.string("name") ?? "")
            }
        }
    }

    /// Maps a driver's unique violation to ``StoreError/duplicate(_:)``.
    @discardableResult
    func translating<T>(_ work: () async throws -> T) async throws -> T {
        do {
            return try await work()
        } catch let error where database.isUniqueViolation(error) {
            throw StoreError.duplicate("\(error)")
        }
    }

    /// Runs `work` again, up to three more times, when a row it read changed before it wrote:
    /// for transactions that read what they decide on themselves.
    func retryingConflicts<T>(_ work: () async throws -> T) async throws -> T {
        var retries = 0
        while true {
            do {
                return try await work()
            } catch let error as StoreError where error.isConflict && retries < 3 {
                retries += 1
            }
        }
    }

    /// How many rows of `table` the user owns, for caps checked in the transaction that inserts.
    static func count(_ table: String, userID: UUID, _ db: any SQLExecutor) async throws -> Int {
        Int(try await db.query("SELECT COUNT(*) AS n FROM \(table) WHERE user_id = ?", [SQLValue(userID)]).first?.int("n") ?? 0)
    }

    // MARK: JSON columns

    static func encode(_ object: [String: JSONValue]) -> String {
        JSONText.encode(object) ?? "{}"
    }

    static func decodeObject(_ text: String?) -> [String: JSONValue] {
        guard let text else { return [:] }
        if let object = JSONText.decodeObject(text) { return object }
        return (try? JSONDecoder().decode([String: JSONValue].self, from: Data(text.utf8))) ?? [:]
    }
}
