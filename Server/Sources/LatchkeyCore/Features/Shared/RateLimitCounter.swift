import Foundation

/// One fixed-window counter to move on (``AuthStore/incrementRateLimits(_:)``).
public struct RateLimitCounter: Sendable, Equatable {
    public var key: String
    public var windowStart: Date
    public var expiresAt: Date
    /// Events the window allows; past it, the counters after this one are left alone.
    public var limit: Int

    public init(key: String, windowStart: Date, expiresAt: Date, limit: Int = .max) {
        self.key = key
        self.windowStart = windowStart
        self.expiresAt = expiresAt
        self.limit = limit
    }
}
