import Synchronization

/// SQLite's one writer connection, with group commit.
///
/// Transactions queue here and run one after another on the writer's own thread, each as one job
/// (its statements and the decisions between them, with no hop per statement). The transactions
/// that queued while one batch was being made durable run as the next batch: each inside a
/// `SAVEPOINT` of one `BEGIN IMMEDIATE … COMMIT`, so they share one disk sync. A transaction whose
/// body throws is rolled back to its savepoint and leaves the others' writes alone. Every caller is
/// answered only after the `COMMIT` that holds its writes has returned, so with `synchronous=FULL`
/// nothing answered is lost at power loss; if that `COMMIT` fails, every caller of the batch gets
/// the error and none of their writes stays.
final class SQLiteWriter: Sendable {
    /// Answers a transaction's caller once its batch has committed (`nil`) or failed.
    typealias Answer = @Sendable ((any Error)?) -> Void

    private struct Job: Sendable {
        /// Runs the body; returns how to answer the caller once the batch's commit is known.
        let run: @Sendable (SQLiteExecutor) async throws -> Answer
        /// Answers the caller with an error.
        let fail: @Sendable (any Error) -> Void
    }

    private struct State {
        var pending: [Job] = []
        var draining = false
    }

    private let state = Mutex(State())
    private let committed = Atomic<Int>(0)
    private let handle: SQLiteHandle
    private let thread: DatabaseThread
    private let maxBatch: Int

    init(handle: SQLiteHandle, thread: DatabaseThread, maxBatch: Int = 64) {
        self.handle = handle
        self.thread = thread
        self.maxBatch = maxBatch
    }

    /// How many batches have committed (for tests and diagnostics).
    var commits: Int { committed.load(ordering: .relaxed) }

    /// Runs `body` in the next batch and returns its result once that batch has committed.
    @discardableResult
    func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let job = Job(
                run: { executor in
                    let value = try await body(executor)
                    return { error in
                        if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: value) }
                    }
                },
                fail: { continuation.resume(throwing: $0) }
            )
            let start = state.withLock { state in
                state.pending.append(job)
                if state.draining { return false }
                state.draining = true
                return true
            }
            if start { Task(executorPreference: thread) { await self.drain() } }
        }
    }

    /// Runs batches until none is waiting.
    private func drain() async {
        while true {
            let batch: [Job] = state.withLock { state in
                guard !state.pending.isEmpty else {
                    state.draining = false
                    return []
                }
                let count = min(maxBatch, state.pending.count)
                let batch = Array(state.pending.prefix(count))
                state.pending.removeFirst(count)
                return batch
            }
            if batch.isEmpty { return }
            await run(batch)
        }
    }

    /// Runs one batch in one transaction and answers every caller after its commit.
    private func run(_ batch: [Job]) async {
        let executor = SQLiteExecutor(handle: handle)
        var ran: [Answer] = []
        var answers: [() -> Void] = []
        var open = begin()
        for job in batch {
            if let error = open.error {
                answers.append { job.fail(error) }
                continue
            }
            do {
                try handle.query("SAVEPOINT latchkey_job", [])
                let answer = try await job.run(executor)
                try handle.query("RELEASE latchkey_job", [])
                ran.append(answer)
            } catch {
                answers.append { job.fail(error) }
                if handle.isInTransaction, (try? rollBackToSavepoint()) != nil { continue }
                // SQLite ended the whole transaction (a full disk, an I/O error): the writes of
                // the jobs that ran before this one are gone too.
                if handle.isInTransaction { _ = try? handle.query("ROLLBACK", []) }
                for answer in ran { answers.append { answer(error) } }
                ran = []
                open = begin()
            }
        }
        if open.error == nil {
            do {
                try handle.query("COMMIT", [])
                committed.add(1, ordering: .relaxed)
                for answer in ran { answers.append { answer(nil) } }
            } catch {
                if handle.isInTransaction { _ = try? handle.query("ROLLBACK", []) }
                for answer in ran { answers.append { answer(error) } }
            }
        }
        for answer in answers { answer() }
    }

    private func begin() -> Result<Void, any Error> {
        Result { try handle.query("BEGIN IMMEDIATE", []) }
    }

    private func rollBackToSavepoint() throws {
        try handle.query("ROLLBACK TO latchkey_job", [])
        try handle.query("RELEASE latchkey_job", [])
    }
}

extension Result {
    fileprivate var error: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
