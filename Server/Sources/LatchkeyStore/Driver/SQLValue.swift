import Foundation
import LatchkeyCore

/// A value bound to or read from a SQL statement, common to every driver.
public enum SQLValue: Sendable, Equatable {
    case null
    case int(Int64)
    case text(String)

    public init(_ value: String?) { self = value.map { .text($0) } ?? .null }
    public init(_ value: Int) { self = .int(Int64(value)) }
    public init(_ value: Int64) { self = .int(value) }
    public init(_ value: Bool) { self = .int(value ? 1 : 0) }
    public init(_ value: UUID) { self = .text(value.lowercasedString) }
    public init(_ value: UUID?) { self = value.map { .text($0.lowercasedString) } ?? .null }
    /// Dates are stored as integer milliseconds since 1970, truncated: never later than the date.
    public init(_ value: Date?) {
        self = value.map { .int(Int64(($0.timeIntervalSince1970 * 1000).rounded(.down))) } ?? .null
    }
}

/// One result row, by column name.
public struct SQLRow: Sendable {
    public let values: [String: SQLValue]

    public init(values: [String: SQLValue]) { self.values = values }

    public func string(_ column: String) -> String? {
        if case .text(let value) = values[column] { return value }
        if case .int(let value) = values[column] { return String(value) }
        return nil
    }

    public func int(_ column: String) -> Int64? {
        switch values[column] {
        case .int(let value): value
        case .text(let value): Int64(value)
        default: nil
        }
    }

    public func bool(_ column: String) -> Bool { (int(column) ?? 0) != 0 }

    /// A column holding a JSON array of strings (what `JSONText.encode(_:)` writes); empty when
    /// null or not such an array.
    public func strings(_ column: String) -> [String] {
        (try? JSONDecoder().decode([String].self, from: Data((string(column) ?? "[]").utf8))) ?? []
    }

    public func date(_ column: String) -> Date? {
        int(column).map { Date(timeIntervalSince1970: Double($0) / 1000) }
    }

    public func uuid(_ column: String) -> UUID? { string(column).flatMap(UUID.init(text:)) }
}

/// Something that runs statements: a connection, or one inside a transaction.
public protocol SQLExecutor: Sendable {
    /// Runs one statement with `?` placeholders and returns its rows.
    @discardableResult
    func query(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow]
    /// Notes audit events this transaction stored, for whoever reports them once it commits
    /// (``ObservedDatabase``); drivers keep no note.
    func noteStored(_ events: [AuditEvent])
}

extension SQLExecutor {
    public func noteStored(_ events: [AuditEvent]) {}
}

/// A database a store runs on.
public protocol SQLDatabase: Sendable {
    /// Runs read-only work.
    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T
    /// Runs read-only work of a few statements that each find rows by an index (the account a
    /// token names): like ``read(_:)``, but a store may run it on the caller's thread, since it
    /// takes microseconds. Nothing that scans or sorts a table goes through here.
    func lookup<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T
    /// Whether rows from several tables are better read as one statement that aggregates them
    /// (PostgreSQL: every statement is a round trip, and the driver's work per statement is most
    /// of a read's cost) than as a statement each (SQLite, in process).
    var aggregatesReads: Bool { get }
    /// Runs `body` in one write transaction, committed when it returns and rolled back when it throws.
    @discardableResult
    func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T
    /// Runs `body` in a transaction that no other instance runs at the same time (migrations),
    /// in which every statement sees what others committed before it.
    func exclusiveTransaction<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T
    /// Runs `body` in a transaction that claims rows for work: its `SELECT`s end with
    /// ``claimClause`` so concurrent claimers skip each other's rows instead of waiting or failing.
    func claimTransaction<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T
    /// Runs `body` in a transaction that takes row locks on what it decides on (``lockClause(_:)``
    /// on its `SELECT`s, or upserts that add to a counter): `READ COMMITTED` on PostgreSQL, where
    /// concurrent requests on one row wait for each other instead of failing to serialize, and
    /// where requests on different rows never conflict; retried on a deadlock.
    @discardableResult
    func lockingTransaction<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T
    /// What a `SELECT` in a ``lockingTransaction(_:)`` ends with to lock the rows it reads:
    /// `FOR UPDATE` or `FOR SHARE` on PostgreSQL, nothing on SQLite (whose writer is alone).
    func lockClause(_ lock: RowLock) -> String
    /// What a claiming `SELECT` ends with: `FOR UPDATE SKIP LOCKED` on PostgreSQL, nothing on SQLite.
    var claimClause: String { get }
    /// Where a write transaction counts the rate limits of its request
    /// (`SQLAuthStore.limitedTransaction`).
    var limitCounting: LimitCounting { get }
    /// Whether an error is a unique-constraint violation.
    func isUniqueViolation(_ error: any Error) -> Bool
    /// Whether the database answers a trivial query now (within about two seconds).
    func ping() async -> Bool
    /// Closes every connection.
    func close() async throws
}

extension SQLDatabase {
    public var aggregatesReads: Bool { false }

    public func lookup<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await read(body)
    }
}

/// Where a write transaction counts its request's rate limits. A request's counters are rows that
/// every request of the same client updates.
public enum LimitCounting: Sendable {
    /// First (SQLite: one writer, so no row waits): a request over a limit stores its counters
    /// and does nothing else.
    case first
    /// Last in a ``SQLDatabase/lockingTransaction(_:)``, so that the counter rows stay locked only
    /// through the commit; a request over a limit is rolled back and its counters stored in a
    /// commit of their own. Before a `SERIALIZABLE` transaction, in a commit of their own
    /// (PostgreSQL: two serializable transactions updating one counter row would fail one of them).
    case last
}

/// How a `SELECT` in a ``SQLDatabase/lockingTransaction(_:)`` locks the rows it reads.
public enum RowLock: Sendable {
    /// Others may read and share-lock the rows, not change them, until the transaction ends.
    case share
    /// The rows are the transaction's alone until it ends.
    case update
}
