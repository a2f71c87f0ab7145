import LatchkeyCore
import Synchronization
import Tracing

/// A ``SQLDatabase`` that runs every write transaction in a span of `tracer` (`db.transaction`),
/// and reports it to ``AuthMetrics`` when it ends: how
/// long it took, how many times its driver ran it (PostgreSQL runs one again after a
/// serialization failure or a deadlock), and, once it has committed, the audit events it stored.
/// A transaction that rolled back reports none of its events, and a retried one only those of its
/// last run, so the counters built on them count only what happened.
///
/// The server wraps its database in one when metrics or traces are on; reads pass straight through.
public struct ObservedDatabase: SQLDatabase {
    /// The database underneath.
    public let base: any SQLDatabase
    let metrics: AuthMetrics
    let tracer: (any Tracer)?

    public init(_ base: any SQLDatabase, metrics: AuthMetrics, tracer: (any Tracer)? = nil) {
        self.base = base
        self.metrics = metrics
        self.tracer = tracer
    }

    public func read<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await base.read(body)
    }

    public func lookup<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await base.lookup(body)
    }

    @discardableResult
    public func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await observe(body) { try await base.transaction($0) }
    }

    public func exclusiveTransaction<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await observe(body) { try await base.exclusiveTransaction($0) }
    }

    public func claimTransaction<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await observe(body) { try await base.claimTransaction($0) }
    }

    @discardableResult
    public func lockingTransaction<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await observe(body) { try await base.lockingTransaction($0) }
    }

    public func lockClause(_ lock: RowLock) -> String { base.lockClause(lock) }
    public var claimClause: String { base.claimClause }
    public var limitCounting: LimitCounting { base.limitCounting }
    public var aggregatesReads: Bool { base.aggregatesReads }
    public func isUniqueViolation(_ error: any Error) -> Bool { base.isUniqueViolation(error) }
    public func ping() async -> Bool { await base.ping() }
    public func close() async throws { try await base.close() }

    /// Runs `body` through `run` (one of the base's transactions) with a journal of its runs.
    private func observe<T: Sendable>(
        _ body: @escaping @Sendable (any SQLExecutor) async throws -> T,
        through run: (@escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T
    ) async throws -> T {
        let journal = Journal()
        let start = ContinuousClock.now
        do {
            let value = try await TracedWork.run(tracer, "db.transaction", kind: .client) { span in
                let value = try await run { db in
                    journal.begin()
                    return try await body(JournalingExecutor(base: db, journal: journal))
                }
                span?.attributes["db.attempts"] = journal.ended().attempts
                return value
            }
            let (attempts, events) = journal.ended()
            metrics.transaction(duration: ContinuousClock.now - start, attempts: attempts, committed: true)
            metrics.committed(events)
            return value
        } catch {
            metrics.transaction(duration: ContinuousClock.now - start, attempts: journal.ended().attempts, committed: false)
            throw error
        }
    }
}

/// What the runs of one transaction stored: the events of the latest run only.
private final class Journal: Sendable {
    private let state = Mutex<(attempts: Int, events: [AuditEvent])>((0, []))

    func begin() {
        state.withLock { $0 = ($0.attempts + 1, []) }
    }

    func note(_ events: [AuditEvent]) {
        state.withLock { $0.events += events }
    }

    func ended() -> (attempts: Int, events: [AuditEvent]) {
        state.withLock { $0 }
    }
}

/// The base's executor, noting the audit events stored through it in the journal.
private struct JournalingExecutor: SQLExecutor {
    let base: any SQLExecutor
    let journal: Journal

    @discardableResult
    func query(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        try await base.query(sql, binds)
    }

    func noteStored(_ events: [AuditEvent]) {
        journal.note(events)
    }
}
