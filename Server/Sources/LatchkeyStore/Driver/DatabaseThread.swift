import Foundation

/// A thread of its own on which a database connection's work runs, as a task executor.
///
/// A transaction runs with this thread as its task's executor preference, so its statements
/// (synchronous calls into SQLite) and the Swift decisions between them run here as one job,
/// without a hop per statement and without blocking the cooperative pool on a disk sync.
final class DatabaseThread: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var jobs: [UnownedJob] = []
    private var stopping = false
    private var stopped = false

    init(name: String) {
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        if stopped {
            // Never strand a job: after the thread ended, the enqueuing thread runs it.
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
            return
        }
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Ends the thread once the jobs already queued have run.
    func stop() {
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        var batch: [UnownedJob] = []
        while true {
            condition.lock()
            while jobs.isEmpty && !stopping { condition.wait() }
            if jobs.isEmpty {
                stopped = true
                condition.unlock()
                return
            }
            swap(&batch, &jobs)
            condition.unlock()
            for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
            batch.removeAll(keepingCapacity: true)
        }
    }
}
