import Foundation

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
