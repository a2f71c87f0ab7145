import Foundation
import Synchronization

extension InMemoryStore: RateLimitStore {
    public func incrementRateLimit(key: String, windowStart: Date, expiresAt: Date) async throws -> Int {
        state.withLock { state in
            let window = RateLimitWindow(key: key, start: windowStart)
            state.counts[window, default: 0] += 1
            return state.counts[window]!
        }
    }

    public func rateLimitCount(key: String, windowStart: Date) async throws -> Int {
        state.withLock { $0.counts[RateLimitWindow(key: key, start: windowStart)] ?? 0 }
    }

    public func decrementRateLimit(key: String, windowStart: Date) async throws {
        state.withLock { state in
            let window = RateLimitWindow(key: key, start: windowStart)
            state.counts[window] = max(0, (state.counts[window] ?? 0) - 1)
        }
    }

    public func incrementRateLimits(_ counters: [RateLimitCounter]) async throws -> [Int] {
        state.withLock { $0.count(counters) }
    }
}

extension InMemoryStore.State {
    /// Counts one event for each counter in order and returns the counts, stopping after the
    /// first that went past its limit (``RateLimitStore/incrementRateLimits(_:)``).
    mutating func count(_ counters: [RateLimitCounter]) -> [Int] {
        var result: [Int] = []
        for counter in counters {
            let window = InMemoryStore.RateLimitWindow(key: counter.key, start: counter.windowStart)
            let count = (counts[window] ?? 0) + 1
            counts[window] = count
            result.append(count)
            if count > counter.limit { break }
        }
        return result
    }

    /// Counts `counters` as the first step of a limited write: ``RateLimitExceeded`` when one
    /// went past its limit. The counts stay either way, as the SQL stores commit a refused
    /// transaction's counters (a step under the lock keeps what it changed before it throws).
    mutating func take(_ counters: [RateLimitCounter]) throws {
        let counts = count(counters)
        if let index = counts.indices.first(where: { counts[$0] > counters[$0].limit }) { throw RateLimitExceeded(index: index) }
    }
}
