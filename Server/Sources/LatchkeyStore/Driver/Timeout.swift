import Foundation
import Synchronization

/// `work` finished in time, or ``StoreSetupError`` "timed out after …" when `limit` passed
/// first, in which case `work` is cancelled and its result is not waited for: a statement stuck
/// on a connection that never answers cannot hold the caller past the limit.
func withTimeout<T: Sendable>(_ limit: Duration, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
    let outcome = Outcome<T>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            outcome.start(continuation, limit: limit, work: work)
        }
    } onCancel: {
        outcome.finish(.failure(CancellationError()))
    }
}

/// The first result to arrive (the work's, the deadline's or a cancellation) resumes the caller.
private final class Outcome<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var early: Result<T, any Error>?
        var tasks: [Task<Void, Never>] = []
    }
    private let state = Mutex(State())

    func start(_ continuation: CheckedContinuation<T, any Error>, limit: Duration, work: @escaping @Sendable () async throws -> T) {
        let early: Result<T, any Error>? = state.withLock { state in
            if let early = state.early { return early }
            state.continuation = continuation
            return nil
        }
        if let early { return continuation.resume(with: early) }
        let worker = Task { [self] in
            do { finish(.success(try await work())) } catch { finish(.failure(error)) }
        }
        let timer = Task { [self] in
            guard (try? await Task.sleep(for: limit)) != nil else { return }
            finish(.failure(StoreSetupError("timed out after \(limit)")))
        }
        let finished = state.withLock { state in
            guard state.continuation != nil else { return true }
            state.tasks = [worker, timer]
            return false
        }
        if finished {
            worker.cancel()
            timer.cancel()
        }
    }

    func finish(_ result: Result<T, any Error>) {
        let (continuation, tasks): (CheckedContinuation<T, any Error>?, [Task<Void, Never>]) = state.withLock { state in
            guard let continuation = state.continuation else {
                if state.early == nil { state.early = result }
                return (nil, [])
            }
            state.continuation = nil
            defer { state.tasks = [] }
            return (continuation, state.tasks)
        }
        for task in tasks { task.cancel() }
        continuation?.resume(with: result)
    }
}
