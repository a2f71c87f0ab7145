import Foundation
import Logging

/// SQLite on disk, in WAL mode with `synchronous=FULL` so a committed revocation or code
/// consumption survives a power loss.
///
/// One writer connection on a thread of its own runs transactions one at a time, batched so
/// that the transactions waiting while one commits share the next commit (``SQLiteWriter``).
/// Reader connections, each on a thread of its own, run a read (all its statements, from one
/// snapshot) as one job; readers never delay the writer. A lookup (a few indexed rows) runs on a
/// reader connection from the caller's thread.
public final class SQLiteDatabase: SQLDatabase {
    struct Reader: Sendable {
        let handle: SQLiteHandle
        let thread: DatabaseThread
    }

    private let writerHandle: SQLiteHandle
    private let writerThread: DatabaseThread
    private let writer: SQLiteWriter
    private let readers: [Reader]
    private let readerPool: ConnectionPool<Reader>
    private let inFlight = InFlightOperations()
    /// The database file.
    public let path: String
    private let logger: Logger

    private init(path: String, writer: SQLiteHandle, writerThread: DatabaseThread, readers: [Reader], logger: Logger) {
        self.path = path
        self.logger = logger
        self.writerHandle = writer
        self.writerThread = writerThread
        self.writer = SQLiteWriter(handle: writer, thread: writerThread)
        self.readers = readers
        self.readerPool = ConnectionPool(readers)
    }

    /// Opens (creating if needed) the database file at `path`, with `readers` reader connections.
    /// Each connection is opened and configured on its own thread.
    public static func open(path: String, readers: Int = 2, logger: Logger = Logger(label: "latchkey.sqlite")) async throws
        -> SQLiteDatabase
    {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let writerThread = DatabaseThread(name: "sqlite-writer")
        var threads = [writerThread]
        do {
            let writer = try await withTaskExecutorPreference(writerThread) {
                let writer = try SQLiteHandle(path: path)
                try writer.query("PRAGMA busy_timeout=10000", [])
                try writer.query("PRAGMA journal_mode=WAL", [])
                // Each job of a batch is a savepoint, whose journal of the pages it changed
                // spilled to a temporary file past 64 KiB: half of all the writes a code
                // sign-in made. In memory it never touches the disk; it lives only until its
                // batch commits (or rolls back), and the log's durability is unchanged.
                try writer.query("PRAGMA temp_store=MEMORY", [])
                try configure(writer)
                return writer
            }
            var readerConnections: [Reader] = []
            for index in 0..<max(1, readers) {
                let thread = DatabaseThread(name: "sqlite-reader-\(index)")
                threads.append(thread)
                let handle = try await withTaskExecutorPreference(thread) {
                    let reader = try SQLiteHandle(path: path)
                    try configure(reader)
                    try reader.query("PRAGMA query_only=1", [])
                    // Reads the schema now, which opens the log and its index: a file this
                    // connection cannot open fails the start, not the first request.
                    _ = try reader.query("SELECT count(*) AS tables FROM sqlite_master", [])
                    return reader
                }
                readerConnections.append(Reader(handle: handle, thread: thread))
            }
            return SQLiteDatabase(path: path, writer: writer, writerThread: writerThread, readers: readerConnections, logger: logger)
        } catch {
            for thread in threads { thread.stop() }
            throw error
        }
    }

    static func configure(_ connection: SQLiteHandle) throws {
        try connection.query("PRAGMA busy_timeout=10000", [])
        try connection.query("PRAGMA synchronous=FULL", [])
        try connection.query("PRAGMA foreign_keys=ON", [])
    }

    /// A pragma's value on the writer (for tests and diagnostics).
    public func pragma(_ name: String) async throws -> String? {
        guard name.allSatisfy({ $0.isLetter || $0 == "_" }) else { return nil }
        return try await transaction { try await $0.query("PRAGMA \(name)", []).first?.values.values.first }.flatMap {
            switch $0 {
            case .text(let text): text
            case .int(let number): String(number)
            case .null: nil
            }
        }
    }

    /// Runs `body` on a reader connection's thread, inside one read transaction (one snapshot).
    public func read<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await inFlight.run {
            let reader = await readerPool.checkout()
            let result = await withTaskExecutorPreference(reader.thread) { await Self.read(on: reader.handle, body) }
            readerPool.checkin(reader)
            return try result.get()
        }
    }

    /// Runs `body` on a reader connection in one read transaction, on the caller's thread: a few
    /// indexed lookups take microseconds, less than the two thread hops to a reader's own thread
    /// and back (what `GET /user` and every signed-in request pay). A reader never waits for the
    /// writer (WAL), so this never blocks the caller on another transaction.
    public func lookup<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await inFlight.run {
            let reader = await readerPool.checkout()
            let result = await Self.read(on: reader.handle, body)
            readerPool.checkin(reader)
            return try result.get()
        }
    }

    private static func read<T: Sendable>(
        on handle: SQLiteHandle, _ body: @escaping @Sendable (any SQLExecutor) async throws -> T
    ) async -> Result<T, any Error> {
        await Result(awaiting: { () async throws -> T in
            try handle.query("BEGIN", [])
            do {
                let value = try await body(SQLiteExecutor(handle: handle))
                try handle.query("COMMIT", [])
                return value
            } catch {
                if handle.isInTransaction { _ = try? handle.query("ROLLBACK", []) }
                throw error
            }
        })
    }

    @discardableResult
    public func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await inFlight.run { try await writer.transaction(body) }
    }

    /// SQLite has one writer: every write transaction is exclusive.
    public func exclusiveTransaction<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) async throws -> T)
        async throws -> T
    {
        try await transaction(body)
    }

    /// SQLite's single writer claims alone.
    public func claimTransaction<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws
        -> T
    {
        try await transaction(body)
    }

    /// SQLite's single writer locks everything it reads.
    @discardableResult
    public func lockingTransaction<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws
        -> T
    {
        try await transaction(body)
    }

    public var claimClause: String { "" }

    /// One writer: counting first costs no wait, and a refused request writes nothing else.
    public var limitCounting: LimitCounting { .first }

    public func lockClause(_ lock: RowLock) -> String { "" }

    /// How many write batches have committed (for tests and diagnostics).
    var commits: Int { writer.commits }

    /// Whether the database answers now (for `/health`): a statement that fails is tried once more
    /// after 50 ms (one statement's failure does not take an instance out of a load balancer;
    /// CI saw one unexplained failure under the whole suite's load), and the log says why.
    public func ping() async -> Bool {
        for attempt in 1...2 {
            do {
                _ = try await read { try await $0.query("SELECT 1 AS one", []) }
                return true
            } catch {
                logger.warning("the database does not answer", metadata: ["error": "\(error)", "attempt": "\(attempt)"])
                if error is ConnectionClosedError { return false }
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
        return false
    }

    public func isUniqueViolation(_ error: any Error) -> Bool {
        (error as? SQLiteError)?.isUniqueViolation ?? false
    }

    /// Refuses new work, lets the work under way finish (at most 10 seconds), then closes every
    /// connection and ends their threads.
    public func close() async throws {
        await inFlight.close(waitingAtMost: .seconds(10))
        for reader in readers {
            await withTaskExecutorPreference(reader.thread) { reader.handle.close() }
            reader.thread.stop()
        }
        // The last connection to close checkpoints the log into the file, on the writer's thread.
        await withTaskExecutorPreference(writerThread) { writerHandle.close() }
        writerThread.stop()
    }
}

extension Result where Failure == any Error {
    /// The result of `body`, or its error.
    fileprivate init(awaiting body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

/// Runs statements on one SQLite connection, synchronously on the caller's thread (the
/// connection's own, by the executor preference its owner sets).
struct SQLiteExecutor: SQLExecutor {
    let handle: SQLiteHandle

    @discardableResult
    func query(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        try handle.query(sql, binds)
    }
}
