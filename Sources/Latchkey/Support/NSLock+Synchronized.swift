import Foundation

extension NSLock {
    /// Runs `body` holding the lock (`NSLocking.withLock` needs newer Apple systems than the
    /// SDK's floor).
    func synchronized<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}
