import Foundation

/// A task an object starts and must stop when it goes away. The object keeps the handle; when
/// the object is released the handle goes with it and cancels the task, so the object needs no
/// `deinit` of its own.
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
