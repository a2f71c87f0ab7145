import Foundation
import LatchkeyCore

extension SQLAuthStore {
    /// How a write transaction isolates its reads on PostgreSQL.
    enum Isolation {
        /// ``SQLDatabase/transaction(_:)``: `SERIALIZABLE`.
        case serializable
        /// ``SQLDatabase/lockingTransaction(_:)``: `READ COMMITTED` with row locks.
        case locking
    }

    /// Runs `body` in a write transaction that also counts a request's rate limits, where the
    /// database counts them (``SQLDatabase/limitCounting``): on the happy path, one commit for
    /// the counters and the request's writes. A counter past its limit throws
    /// ``RateLimitExceeded``, with only the counters stored.
    func limitedTransaction<T: Sendable>(
        _ limits: [RateLimitCounter], _ isolation: Isolation, _ body: @escaping @Sendable (any SQLExecutor) async throws -> T
    ) async throws -> T {
        guard !limits.isEmpty else { return try await transaction(isolation, body) }
        switch (database.limitCounting, isolation) {
        case (.first, _):
            let outcome = try await transaction(isolation) { db -> Limited<T> in
                if let index = try await Self.count(limits, db) { return .refused(index) }
                return .done(try await body(db))
            }
            switch outcome {
            case .done(let value): return value
            case .refused(let index): throw RateLimitExceeded(index: index)
            }
        case (.last, .locking):
            do {
                return try await transaction(.locking) { db in
                    let value = try await body(db)
                    if let index = try await Self.count(limits, db) { throw RateLimitExceeded(index: index) }
                    return value
                }
            } catch let refused as RateLimitExceeded {
                // Rolled back: the counters alone, in a commit of their own. A window that ended
                // in between may let this count pass; the request is refused all the same.
                throw RateLimitExceeded(index: try await countAlone(limits) ?? refused.index)
            }
        case (.last, .serializable):
            if let index = try await countAlone(limits) { throw RateLimitExceeded(index: index) }
            return try await transaction(.serializable, body)
        }
    }

    private enum Limited<T: Sendable>: Sendable {
        case done(T)
        case refused(Int)
    }

    @discardableResult
    private func transaction<T: Sendable>(
        _ isolation: Isolation, _ body: @escaping @Sendable (any SQLExecutor) async throws -> T
    ) async throws -> T {
        switch isolation {
        case .serializable: try await database.transaction(body)
        case .locking: try await database.lockingTransaction(body)
        }
    }

    /// Counts `limits` in a transaction of their own; the index of the first one passed.
    private func countAlone(_ limits: [RateLimitCounter]) async throws -> Int? {
        try await database.lockingTransaction { db in try await Self.count(limits, db) }
    }

    /// Counts one event for each counter in order, stopping after the first that went past its
    /// limit (the later ones do not count a refused event); the counts, including this event.
    static func increment(_ counters: [RateLimitCounter], _ db: any SQLExecutor) async throws -> [Int] {
        var counts: [Int] = []
        for counter in counters {
            let rows = try await db.query(
                """
                INSERT INTO rate_limits (key, window_start, count, expires_at) VALUES (?, ?, 1, ?)
                ON CONFLICT (key, window_start) DO UPDATE SET count = rate_limits.count + 1
                RETURNING count
                """, [.text(counter.key), SQLValue(counter.windowStart), SQLValue(counter.expiresAt)])
            let count = Int(rows.first?.int("count") ?? 1)
            counts.append(count)
            if count > counter.limit { break }
        }
        return counts
    }

    /// Counts `limits` (``increment(_:_:)``); the index of the first one passed, if any.
    static func count(_ limits: [RateLimitCounter], _ db: any SQLExecutor) async throws -> Int? {
        let counts = try await increment(limits, db)
        return counts.indices.first { counts[$0] > limits[$0].limit }
    }
}
