import Foundation
import Logging
import NIOPosix
import SQLiteNIO

/// SQLite on disk: one writer connection, whose transactions run one at a time
/// (`BEGIN IMMEDIATE`), and a few reader connections, in WAL mode with `synchronous=FULL` so a
/// committed revocation or code consumption survives a power loss.
public final class SQLiteDatabase: SQLDatabase {
    let writer: SQLiteConnection
    let readers: [SQLiteConnection]
    let readerPool: ConnectionPool<SQLiteConnection>
    let writeLock = AsyncMutex()
    /// The database file.
    public let path: String

    init(path: String, writer: SQLiteConnection, readers: [SQLiteConnection]) {
        self.path = path
        self.writer = writer
        self.readers = readers
        self.readerPool = ConnectionPool(readers)
    }

    /// Opens (creating if needed) the database file at `path`.
    public static func open(path: String, readers: Int = 4, logger: Logger = Logger(label: "latchkey.sqlite")) async throws
        -> SQLiteDatabase
    {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let writer = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
        _ = try await writer.query("PRAGMA journal_mode=WAL")
        try await configure(writer)
        var readerConnections: [SQLiteConnection] = []
        for _ in 0..<max(1, readers) {
            let reader = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
            try await configure(reader)
            readerConnections.append(reader)
        }
        return SQLiteDatabase(path: path, writer: writer, readers: readerConnections)
    }

    static func configure(_ connection: SQLiteConnection) async throws {
        _ = try await connection.query("PRAGMA synchronous=FULL")
        _ = try await connection.query("PRAGMA foreign_keys=ON")
        _ = try await connection.query("PRAGMA busy_timeout=10000")
    }

    /// A pragma's value on the writer (for tests and diagnostics).
    public func pragma(_ name: String) async throws -> String? {
        guard name.allSatisfy({ $0.isLetter || $0 == "_" }) else { return nil }
        return try await writer.query("PRAGMA \(name)").first?.columns.first?.data.string
    }

    public func read<T: Sendable>(_ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        let connection = await readerPool.checkout()
        do {
            let result = try await body(SQLiteExecutor(connection: connection))
            await readerPool.checkin(connection)
            return result
        } catch {
            await readerPool.checkin(connection)
            throw error
        }
    }

    public func transaction<T: Sendable>(_ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        await writeLock.lock()
        let executor = SQLiteExecutor(connection: writer)
        do {
            try await executor.query("BEGIN IMMEDIATE", [])
        } catch {
            await writeLock.unlock()
            throw error
        }
        do {
            let result = try await body(executor)
            try await executor.query("COMMIT", [])
            await writeLock.unlock()
            return result
        } catch {
            _ = try? await executor.query("ROLLBACK", [])
            await writeLock.unlock()
            throw error
        }
    }

    /// SQLite has one writer: every write transaction is exclusive.
    public func exclusiveTransaction<T: Sendable>(_ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await transaction(body)
    }

    /// SQLite's single writer claims alone.
    public func claimTransaction<T: Sendable>(_ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await transaction(body)
    }

    public var claimClause: String { "" }

    public func ping() async -> Bool {
        (try? await read { try await $0.query("SELECT 1 AS one", []) }) != nil
    }

    public func isUniqueViolation(_ error: any Error) -> Bool {
        guard let error = error as? SQLiteError else { return false }
        return error.message.contains("UNIQUE constraint failed")
    }

    public func close() async throws {
        for reader in readers { try await reader.close() }
        try await writer.close()
    }
}

/// Runs statements on one SQLite connection.
struct SQLiteExecutor: SQLExecutor {
    let connection: SQLiteConnection

    func query(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        let data: [SQLiteData] = binds.map { value in
            switch value {
            case .null: .null
            case .int(let number): .integer(SQLiteInt64(number))
            case .text(let text): .text(text)
            }
        }
        let rows = try await connection.query(sql, data)
        return rows.map { row in
            var values: [String: SQLValue] = [:]
            for column in row.columns {
                switch column.data {
                case .null: values[column.name] = .null
                case .integer(let number): values[column.name] = .int(Int64(number))
                case .float(let number): values[column.name] = .int(Int64(number))
                case .text(let text): values[column.name] = .text(text)
                case .blob(let buffer): values[column.name] = .text(String(buffer: buffer))
                }
            }
            return SQLRow(values: values)
        }
    }
}
