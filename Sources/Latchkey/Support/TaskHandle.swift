import Foundation

/// A task an object starts and must stop when it goes away: kept where a `deinit` can reach it.
final class TaskHandle: @unchecked Sendable {
    private let lock = NSLock()
    private var task: Task<Void, Never>?

    init() {}

    /// Keeps `task`, cancelling the one kept before.
    func set(_ task: Task<Void, Never>) {
        let previous = lock.synchronized { () -> Task<Void, Never>? in
            defer { self.task = task }
            return self.task
        }
        previous?.cancel()
    }

    /// Cancels the kept task.
    func cancel() {
        lock.synchronized { task }?.cancel()
    }

    deinit { task?.cancel() }
}
