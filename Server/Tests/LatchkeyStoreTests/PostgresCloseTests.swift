import Foundation
import Synchronization
import Testing

@testable import LatchkeyStore

@Suite(.timeLimit(.minutes(2))) struct PostgresCloseTests {
    /// Reads and transactions in flight when the database closes all end, a ping after the
    /// close answers `false` at once, and nothing waits for ever on a pool that is gone (CI once
    /// hung for an hour on a statement written to a connection the pool had closed under it).
    @Test func everythingInFlightEndsWhenTheDatabaseCloses() async throws {
        for _ in 0..<20 {
            guard let postgres = try await TestPostgres.open(poolSize: 3) else { return }
            let database = postgres.database
            let workers = (0..<12).map { worker in
                Task {
                    var done = 0
                    while true {
                        do {
                            if worker.isMultiple(of: 2) {
                                _ = try await database.read { try await $0.query("SELECT pg_sleep(0.002)", []) }
                            } else {
                                _ = try await database.transaction { db in
                                    _ = try await db.query("SELECT 1 AS one", [])
                                    return try await db.query("SELECT pg_sleep(0.001)", [])
                                }
                            }
                            done += 1
                        } catch {
                            #expect(error is ConnectionClosedError)
                            return done
                        }
                    }
                }
            }
            try await Task.sleep(for: .milliseconds(Int.random(in: 5...60)))
            try await database.close()
            #expect(await database.ping() == false)
            for worker in workers { _ = await worker.value }
            try await postgres.drop()
        }
    }

    /// Work that reaches the pool after it shut down (as work still waiting when `close()` stops
    /// waiting does) fails as ``ConnectionClosedError``, like work refused once the close began.
    @Test func workCutShortByThePoolsShutdownIsAClosedDatabase() async throws {
        guard let postgres = try await TestPostgres.open(poolSize: 2) else { return }
        let database = postgres.database
        _ = try await database.read { try await $0.query("SELECT 1 AS one", []) }
        try await postgres.drop()
        database.running.cancel()
        try await Task.sleep(for: .milliseconds(200))
        await #expect(throws: ConnectionClosedError.self) {
            try await database.read { try await $0.query("SELECT 1 AS one", []) }
        }
        await #expect(throws: ConnectionClosedError.self) {
            try await database.transaction { try await $0.query("SELECT 1 AS one", []) }
        }
        try await database.close()
    }

    /// Statements still running when the close stops waiting for them (10 s in `close()`: a
    /// loaded CI machine once got there) end with the pool, as ``ConnectionClosedError`` like
    /// work refused once the close began, not as the connection's own error.
    @Test func statementsTheCloseStopsWaitingForAreAClosedDatabase() async throws {
        guard let postgres = try await TestPostgres.open(poolSize: 2) else { return }
        let database = postgres.database
        let started = Shared(0)
        let read = Task {
            try await database.read { db in
                started.withLock { $0 += 1 }
                _ = try await db.query("SELECT pg_sleep(30)", [])
            }
        }
        let transaction = Task {
            try await database.transaction { db in
                started.withLock { $0 += 1 }
                _ = try await db.query("SELECT pg_sleep(30)", [])
            }
        }
        while started.withLock({ $0 }) < 2 { try await Task.sleep(for: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(100))
        try await database.close(waitingAtMost: .milliseconds(50))
        await #expect(throws: ConnectionClosedError.self) { try await read.value }
        await #expect(throws: ConnectionClosedError.self) { try await transaction.value }
        try await postgres.drop()
    }

    /// A statement that never answers (and ignores cancellation) holds its caller no longer
    /// than the limit: what `/health` relies on when the database hangs. The work runs until the
    /// test lets it go, which it does only after the timeout answered, so a timeout that waited
    /// for the work would answer only at the work's own 60-second fallback and fail here; no
    /// wall-clock threshold (CI's loaded cores once took 3.7 s to answer a 200 ms limit).
    @Test func aTimeoutDoesNotWaitForWorkThatIgnoresCancellation() async throws {
        let released = Mutex(false)
        let workEnded = Mutex(false)
        await #expect(throws: StoreSetupError.self) {
            try await withTimeout(.milliseconds(200)) {
                let fallback = ContinuousClock.now.advanced(by: .seconds(60))
                while !released.withLock({ $0 }), ContinuousClock.now < fallback {
                    try? await Task.sleep(for: .milliseconds(20))
                }
                workEnded.withLock { $0 = true }
                return 1
            }
        }
        #expect(workEnded.withLock { $0 } == false)
        released.withLock { $0 = true }
        #expect(try await withTimeout(.seconds(5)) { 7 } == 7)
    }
}
