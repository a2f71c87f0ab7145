import Foundation
import Logging
import NIOSSL
import PostgresNIO
import _ConnectionPoolModule

/// PostgreSQL through postgres-nio's connection pool, for several Latchkey instances on one
/// database.
///
/// Every transaction runs `SERIALIZABLE` on one connection and is retried (up to 40 times, with
/// a short random back-off) when PostgreSQL aborts it for a serialization failure or a
/// deadlock, so the store's read-then-write transactions keep the guarantees SQLite's single
/// writer gives them. Tables live in their own schema (GoTrue's `auth` by default), set as the
/// `search_path` of every connection.
public final class PostgresDatabase: SQLDatabase {
    public let client: PostgresClient
    /// The schema the tables live in.
    public let schema: String
    let logger: Logger
    let running: Task<Void, Never>
    /// What runs on the pool now; `close()` lets it finish before the pool shuts down.
    let operations = InFlightOperations()
    /// The statements each connection has prepared; `nil` when statements run unnamed.
    let statements: PreparedStatements?
    /// How long `ping()` waits.
    let pingTimeout: Duration

    /// Where and how to connect.
    public struct Options: Sendable {
        public var url: URL
        /// The schema for Latchkey's tables (created when missing).
        public var schema: String
        /// Connections in the pool.
        public var poolSize: Int
        /// `disable`, `prefer` or `require` (libpq's `sslmode`; `verify-full` is `require`
        /// with certificate and host-name checks, which `require` does here too).
        public var tls: String
        /// A PEM file of CA certificates to trust instead of the system's.
        public var caFile: String?
        /// Whether a statement with parameters is prepared once per connection (named) rather
        /// than parsed and planned on every run; off behind a pooler that cannot keep them.
        public var preparedStatements = true
        /// How long ``PostgresDatabase/ping()`` (`/health`) waits for `SELECT 1`, a fresh
        /// connection included, before it reports the database as not answering.
        public var pingTimeout: Duration = .seconds(2)

        /// Throws ``StoreSetupError`` for a URL that names no PostgreSQL host, a schema name that is
        /// not a plain lower-case identifier, or an unknown `sslmode`.
        public func validate() throws {
            guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
                ["postgres", "postgresql"].contains(components.scheme ?? ""), let host = components.host, !host.isEmpty
            else { throw StoreSetupError("DATABASE_URL must look like postgres://user:password@host:5432/database") }
            guard schema.range(of: #"^[a-z_][a-z0-9_]{0,62}$"#, options: .regularExpression) != nil else {
                throw StoreSetupError("The PostgreSQL schema name must be lower-case letters, digits and _, not \(schema)")
            }
            guard ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"].contains(tls) else {
                throw StoreSetupError("sslmode must be disable, prefer or require, not \(tls)")
            }
        }

        public init(url: URL, schema: String = "auth", poolSize: Int = 10, tls: String? = nil, caFile: String? = nil) {
            self.url = url
            self.schema = schema
            self.poolSize = poolSize
            let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            self.tls = tls ?? query.first { $0.name == "sslmode" }?.value ?? "prefer"
            self.caFile = caFile
        }
    }

    init(
        client: PostgresClient, schema: String, preparing: Bool, logger: Logger, running: Task<Void, Never>,
        pingTimeout: Duration = .seconds(2)
    ) {
        self.pingTimeout = pingTimeout
        self.client = client
        self.statements = preparing ? PreparedStatements() : nil
        self.schema = schema
        self.logger = logger
        self.running = running
    }

    /// Connects (checking the server answers), creating the schema when missing.
    public static func open(_ options: Options, logger: Logger = Logger(label: "latchkey.postgres")) async throws
        -> PostgresDatabase
    {
        try options.validate()
        let components = URLComponents(url: options.url, resolvingAgainstBaseURL: false)!
        let host = components.host!
        let tls: PostgresClient.Configuration.TLS
        switch options.tls {
        case "disable": tls = .disable
        case "prefer", "allow": tls = .prefer(try Self.tlsConfiguration(options.caFile))
        default: tls = .require(try Self.tlsConfiguration(options.caFile))
        }
        let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        var configuration = PostgresClient.Configuration(
            host: host, port: components.port ?? 5432, username: components.user?.removingPercentEncoding ?? "postgres",
            password: components.password?.removingPercentEncoding, database: database.isEmpty ? nil : database, tls: tls)
        configuration.options.maximumConnections = max(1, options.poolSize)
        configuration.options.connectTimeout = .seconds(10)
        configuration.options.additionalStartupParameters = [("search_path", options.schema)]
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        let running = Task { await client.run() }
        let opened = PostgresDatabase(
            client: client, schema: options.schema, preparing: options.preparedStatements, logger: logger, running: running,
            pingTimeout: options.pingTimeout)
        do {
            try await withTimeout(.seconds(15)) {
                try await client.withConnection { connection in
                    _ = try await connection.query(
                        PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \(options.schema)"), logger: logger)
                }
            }
        } catch {
            running.cancel()
            throw StoreSetupError("Cannot reach PostgreSQL at \(host): \(String(reflecting: error))")
        }
        return opened
    }

    static func tlsConfiguration(_ caFile: String?) throws -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let caFile {
            configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(caFile))
        }
        return configuration
    }

    /// Runs `work` as one of this database's operations. An operation the pool's shutdown cut
    /// short (still waiting for a connection, or with a statement on one, when `close()` stopped
    /// waiting for it) fails as one refused after the close began: ``ConnectionClosedError``,
    /// not the pool's or the connection's own error.
    func operation<T>(_ work: () async throws -> T) async throws -> T {
        do {
            return try await operations.run(work)
        } catch let error as ConnectionPoolError where error == .poolShutdown {
            throw ConnectionClosedError()
        } catch  where operations.isClosing && Self.connectionIsGone(error) {
            throw ConnectionClosedError()
        }
    }

    public func read<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await operation {
            try await client.withConnection { connection in
                try await withTaskExecutorPreference(EventLoopTaskExecutor(connection.eventLoop)) {
                    try await body(PostgresExecutor(connection: connection, statements: statements?.of(connection), logger: logger))
                }
            }
        }
    }

    @discardableResult
    public func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await retrying("SERIALIZABLE", body)
    }

    /// Runs `body` in a transaction at `isolation`, again after a serialization failure or a
    /// deadlock (at most 40 tries, after a short random pause that grows with each).
    func retrying<T: Sendable>(_ isolation: String, _ body: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws
        -> T
    {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await inTransaction(isolation, body)
            } catch  where attempt < 40 && Self.isRetryable(error) {
                try await Task.sleep(for: .milliseconds(Int.random(in: 1...(2 * min(attempt, 25)))))
            }
        }
    }

    /// A `READ COMMITTED` transaction: claimed rows are locked (`FOR UPDATE SKIP LOCKED`) and
    /// every update re-checks its condition, so claimers never share a row.
    public func claimTransaction<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await inTransaction("READ COMMITTED", body)
    }

    public var claimClause: String { " FOR UPDATE SKIP LOCKED" }

    /// Every request of one client updates its counter rows: counted last, they stay locked only
    /// through the commit.
    public var limitCounting: LimitCounting { .last }

    /// A statement costs a round trip and postgres-nio's work per statement: the account a token
    /// names is one.
    public var aggregatesReads: Bool { true }

    public func lockClause(_ lock: RowLock) -> String {
        switch lock {
        case .share: " FOR SHARE"
        case .update: " FOR UPDATE"
        }
    }

    /// `READ COMMITTED`: the body's locking `SELECT`s and counter upserts lock their rows, so
    /// requests on one row queue on it and requests on different rows never conflict (where
    /// `SERIALIZABLE` fails one of them on shared index pages).
    /// Two transactions locking the same rows in another order can deadlock: retried.
    @discardableResult
    public func lockingTransaction<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await retrying("READ COMMITTED", body)
    }

    /// A `READ COMMITTED` transaction holding an advisory lock on the schema: instances that
    /// start at once migrate one after the other, each seeing what the previous one applied.
    public func exclusiveTransaction<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        let lock = "latchkey:" + schema
        return try await inTransaction("READ COMMITTED") { db in
            try await db.query("SELECT pg_advisory_xact_lock(hashtext(?))", [.text(lock)])
            return try await body(db)
        }
    }

    /// Runs `body` between `BEGIN ISOLATION LEVEL isolation` and `COMMIT` on one connection,
    /// rolling back when it throws.
    func inTransaction<T: Sendable>(_ isolation: String, _ body: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T
    {
        try await operation {
            try await client.withConnection { connection in
                try await withTaskExecutorPreference(EventLoopTaskExecutor(connection.eventLoop)) {
                    let executor = PostgresExecutor(connection: connection, statements: statements?.of(connection), logger: logger)
                    try await executor.query("BEGIN ISOLATION LEVEL \(isolation)", [])
                    do {
                        let result = try await body(executor)
                        try await executor.query("COMMIT", [])
                        return result
                    } catch {
                        // A connection that is gone rolled back on the server already; a statement
                        // written to it would wait for an answer for ever (postgres-nio loses it).
                        if !Self.connectionIsGone(error) {
                            _ = try? await executor.query("ROLLBACK", [])
                        }
                        throw error
                    }
                }
            }
        }
    }

    /// Whether `error` says the connection closed (ours or the server's side). A prepared
    /// statement's errors come in postgres-nio's older `PostgresError` form.
    static func connectionIsGone(_ error: any Error) -> Bool {
        if error is ConnectionClosedError { return true }
        if let error = error as? PostgresError {
            switch error {
            case .connectionClosed: return true
            case .protocol(let message): return message == "Unexpected connection close"
            default: return false
            }
        }
        guard let error = error as? PSQLError else { return false }
        return [.clientClosedConnection, .serverClosedConnection, .connectionError, .uncleanShutdown, .poolClosed].contains(error.code)
    }

    /// The SQLSTATE of a server error, in either of postgres-nio's error forms.
    static func sqlState(_ error: any Error) -> String? {
        if let error = error as? PSQLError { return error.serverInfo?[.sqlState] }
        if case .server(let message) = error as? PostgresError { return message.fields[.sqlState] }
        return nil
    }

    static func isRetryable(_ error: any Error) -> Bool {
        // 40001 serialization_failure, 40P01 deadlock_detected.
        let state = sqlState(error)
        return state == "40001" || state == "40P01"
    }

    public func isUniqueViolation(_ error: any Error) -> Bool {
        Self.sqlState(error) == "23505"
    }

    /// Whether the database answers now (for `/health`) within ``Options/pingTimeout``.
    public func ping() async -> Bool {
        do {
            _ = try await withTimeout(pingTimeout) { try await self.read { try await $0.query("SELECT 1 AS one", []) } }
            return true
        } catch {
            logger.warning("the database does not answer", metadata: ["error": "\(error)"])
            return false
        }
    }

    /// Refuses new work at once (``ConnectionClosedError``), lets the statements under way
    /// finish (10 s at most), then shuts the pool down.
    public func close() async throws {
        try await close(waitingAtMost: .seconds(10))
    }

    /// ``close()`` waiting at most `limit` for the statements under way; those still running
    /// then end as ``ConnectionClosedError``.
    func close(waitingAtMost limit: Duration) async throws {
        let abandoned = await operations.close(waitingAtMost: limit)
        if abandoned > 0 { logger.warning("closing with statements still running", metadata: ["count": "\(abandoned)"]) }
        running.cancel()
    }
}

/// A store that cannot be opened: a bad URL, an unreachable server.
public struct StoreSetupError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
