import Foundation
import Synchronization

/// Counts the operations under way on a database so that closing it lets them finish first.
///
/// A pool that shuts down under a statement in flight can leave that statement waiting for an
/// answer that never comes; closing through this gate refuses new operations at once
/// (``ConnectionClosedError``) and shuts the pool only once the running ones have ended.
final class InFlightOperations: Sendable {
    private struct State {
        var closing = false
        var running = 0
    }
    private let state = Mutex(State())

    /// Whether closing has begun.
    var isClosing: Bool { state.withLock { $0.closing } }

    /// Runs `operation` unless closing has begun.
    func run<T>(_ operation: () async throws -> T) async throws -> T {
        try state.withLock { state in
            guard !state.closing else { throw ConnectionClosedError() }
            state.running += 1
        }
        defer { state.withLock { $0.running -= 1 } }
        return try await operation()
    }

    /// Refuses new operations, then waits until the running ones have ended, at most `limit`;
    /// returns how many were still running then.
    @discardableResult
    func close(waitingAtMost limit: Duration) async -> Int {
        state.withLock { $0.closing = true }
        let deadline = ContinuousClock.now.advanced(by: limit)
        while true {
            let running = state.withLock { $0.running }
            if running == 0 || ContinuousClock.now >= deadline { return running }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }
}
