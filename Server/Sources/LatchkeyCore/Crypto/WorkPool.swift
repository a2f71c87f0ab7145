/// Where CPU-heavy work (password hashing) runs, off the caller's executor. The app injects one
/// (a NIO thread pool in the server, `NIOWorkPool`); ``InlineWorkPool`` runs work in place, for
/// tests and one-off tools.
public protocol WorkPool: Sendable {
    /// Runs `work` on the pool and returns its result.
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T
}

/// Runs work on the caller's own executor.
public struct InlineWorkPool: WorkPool {
    public init() {}

    public func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try work()
    }
}
