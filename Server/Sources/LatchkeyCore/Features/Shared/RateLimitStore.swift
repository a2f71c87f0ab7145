import Foundation
import Synchronization

/// What rate limits need from storage: fixed-window counters that hold across restarts and
/// instances.
public protocol RateLimitStore: Sendable {
    /// Counts one event for `key` in the window starting at `windowStart` and returns the count
    /// including it.
    func incrementRateLimit(key: String, windowStart: Date, expiresAt: Date) async throws -> Int
    /// The count for `key` in the window starting at `windowStart`.
    func rateLimitCount(key: String, windowStart: Date) async throws -> Int
    /// Takes one back from the count for `key` in the window starting at `windowStart` (never
    /// below zero): a reserved attempt that turned out not to count.
    func decrementRateLimit(key: String, windowStart: Date) async throws
    /// Counts one event for each counter in order, all in one transaction (one commit), and
    /// returns the counts including it; stops after the first counter that went past its
    /// ``RateLimitCounter/limit`` (the later ones do not count a refused event).
    func incrementRateLimits(_ counters: [RateLimitCounter]) async throws -> [Int]
}

/// ``RateLimitStore`` in memory, one step under a lock per call, for unit tests.
public final class InMemoryRateLimitStore: RateLimitStore {
    private struct Window: Hashable {
        let key: String
        let start: Date
    }

    private let counts = Mutex<[Window: Int]>([:])

    public init() {}

    public func incrementRateLimit(key: String, windowStart: Date, expiresAt: Date) async throws -> Int {
        counts.withLock { counts in
            let window = Window(key: key, start: windowStart)
            counts[window, default: 0] += 1
            return counts[window]!
        }
    }

    public func rateLimitCount(key: String, windowStart: Date) async throws -> Int {
        counts.withLock { $0[Window(key: key, start: windowStart)] ?? 0 }
    }

    public func decrementRateLimit(key: String, windowStart: Date) async throws {
        counts.withLock { counts in
            let window = Window(key: key, start: windowStart)
            counts[window] = max(0, (counts[window] ?? 0) - 1)
        }
    }

    public func incrementRateLimits(_ counters: [RateLimitCounter]) async throws -> [Int] {
        counts.withLock { counts in
            var result: [Int] = []
            for counter in counters {
                let window = Window(key: counter.key, start: counter.windowStart)
                let count = (counts[window] ?? 0) + 1
                counts[window] = count
                result.append(count)
                if count > counter.limit { break }
            }
            return result
        }
    }
}
