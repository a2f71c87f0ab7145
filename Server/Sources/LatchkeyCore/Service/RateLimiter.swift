import Foundation

/// Fixed-window counters kept in the store, so that limits hold across restarts and instances.
///
/// A request's limits are values (issue #38): ``counters(for:)`` gives the counters its one store
/// call counts in its transaction (one commit for the request), ``refusal(from:of:)`` answers for
/// the limit that call found passed, and ``charge(_:)`` counts them on their own for a request
/// that never reached its write.
public struct RateLimiter: Sendable {
    /// One limit of a request, and the error that refuses a request past it.
    public struct Limit: Sendable {
        public var key: String
        public var limit: RateLimit
        public var refusal: @Sendable (Int) -> AuthError

        public init(_ key: String, _ limit: RateLimit, refusal: @escaping @Sendable (Int) -> AuthError = AuthError.rateLimited) {
            self.key = key
            self.limit = limit
            self.refusal = refusal
        }
    }

    let store: any RateLimitStore
    let time: any TimeSource
    /// Where refusals are counted, by limit.
    let metrics: AuthMetrics

    public init(store: any RateLimitStore, time: any TimeSource, metrics: AuthMetrics = .disabled) {
        self.store = store
        self.time = time
        self.metrics = metrics
    }

    /// Counts a refusal by the limit stored under `key`, and returns `error` to throw.
    func refusing(_ key: String, _ error: AuthError) -> AuthError {
        metrics.rateLimitRefused(key: key)
        return error
    }

    /// Counts one event; throws when it exceeds the limit (the event still counts).
    public func hit(_ key: String, _ limit: RateLimit, error: @escaping @Sendable (Int) -> AuthError = AuthError.rateLimited)
        async throws
    {
        try await hit([Limit(key, limit, refusal: error)])
    }

    /// Counts one event against each limit in order, in one commit, as consecutive ``hit(_:_:error:)``
    /// calls would: the first limit it exceeds throws, and the limits after it do not count it (a
    /// refused per-address request spends none of the global budget).
    public func hit(
        _ limits: [(key: String, limit: RateLimit)], error: @escaping @Sendable (Int) -> AuthError = AuthError.rateLimited
    ) async throws {
        try await hit(limits.map { Limit($0.key, $0.limit, refusal: error) })
    }

    /// ``hit(_:error:)`` for limits that carry their own refusals.
    public func hit(_ limits: [Limit]) async throws {
        let limits = limits.filter { !$0.limit.isOff }
        guard !limits.isEmpty else { return }
        let (counters, windows) = counters(limits)
        let counts = try await store.incrementRateLimits(counters)
        for (index, count) in counts.enumerated() where count > limits[index].limit.count {
            throw refusing(limits[index].key, limits[index].refusal(windows[index].secondsLeft))
        }
    }

    /// The counters of `limits` in their current windows, and those windows.
    func counters(_ limits: [Limit]) -> ([RateLimitCounter], [(start: Date, end: Date, secondsLeft: Int)]) {
        let windows = limits.map { window($0.limit) }
        let counters = zip(limits, windows).map { limit, window in
            RateLimitCounter(key: limit.key, windowStart: window.start, expiresAt: window.end, limit: limit.limit.count)
        }
        return (counters, windows)
    }

    /// A request's limits as values (issue #38): the counters its one store call counts in its
    /// transaction, and what ``refusal(from:of:)`` needs to answer for the one it passes.
    public func counters(for limits: [Limit]) -> LimitCounters {
        let limits = limits.filter { !$0.limit.isOff }
        let (counters, windows) = counters(limits)
        return LimitCounters(counters: counters, limits: limits, secondsLeft: windows.map(\.secondsLeft))
    }

    /// The refusal of the limit a store call found passed (``RateLimitExceeded``), counted in the metrics.
    public func refusal(from exceeded: RateLimitExceeded, of counted: LimitCounters) -> AuthError {
        guard counted.limits.indices.contains(exceeded.index) else { return AuthError.requestRateLimit }
        let limit = counted.limits[exceeded.index]
        return refusing(limit.key, limit.refusal(counted.secondsLeft[exceeded.index]))
    }

    /// Counts `counted` in a commit of its own: for a request refused before its store call, which
    /// still spends its budget. Throws the refusal of the first limit passed.
    public func charge(_ counted: LimitCounters) async throws {
        try await hit(counted.limits)
    }

    /// Throws when the limit is already reached, without counting.
    public func check(_ key: String, _ limit: RateLimit, error: (Int) -> AuthError = AuthError.rateLimited) async throws {
        guard !limit.isOff else { return }
        let window = self.window(limit)
        let count = try await store.rateLimitCount(key: key, windowStart: window.start)
        if count >= limit.count { throw refusing(key, error(window.secondsLeft)) }
    }

    /// Reserves one attempt before the work it limits (a password hash): the count moves first,
    /// so concurrent attempts all count, and past the limit the attempt is refused unhashed.
    /// Returns the count including this attempt; ``release(_:)`` takes it back when the
    /// attempt turns out not to count (a right password).
    public func reserve(_ key: String, _ limit: RateLimit, error: (Int) -> AuthError = AuthError.rateLimited) async throws
        -> Reservation
    {
        guard !limit.isOff else { return Reservation(key: key, windowStart: .distantPast, count: 0, counted: false) }
        let window = self.window(limit)
        let count = try await store.incrementRateLimit(key: key, windowStart: window.start, expiresAt: window.end)
        if count > limit.count {
            try await store.decrementRateLimit(key: key, windowStart: window.start)
            throw refusing(key, error(window.secondsLeft))
        }
        return Reservation(key: key, windowStart: window.start, count: count, counted: true)
    }

    /// An attempt counted by ``reserve(_:_:error:)``.
    public struct Reservation: Sendable {
        let key: String
        let windowStart: Date
        /// The count in the window including this attempt (0 under a limit that is off).
        public let count: Int
        /// Whether the store counted it (not under a limit that is off).
        let counted: Bool
    }

    /// Takes back a reserved attempt.
    public func release(_ reservation: Reservation) async throws {
        guard reservation.counted else { return }
        try await store.decrementRateLimit(key: reservation.key, windowStart: reservation.windowStart)
    }

    /// Counts one event without judging it, and returns the count in the window including it.
    @discardableResult
    public func record(_ key: String, _ limit: RateLimit) async throws -> Int {
        guard !limit.isOff else { return 0 }
        let window = self.window(limit)
        return try await store.incrementRateLimit(key: key, windowStart: window.start, expiresAt: window.end)
    }

    func window(_ limit: RateLimit) -> (start: Date, end: Date, secondsLeft: Int) {
        let now = time.now().timeIntervalSince1970
        let period = Double(max(1, limit.period))
        let start = (now / period).rounded(.down) * period
        let end = start + period
        return (Date(timeIntervalSince1970: start), Date(timeIntervalSince1970: end), Int((end - now).rounded(.up)))
    }
}

/// A request's rate limits, counted: the counters a store call takes in its transaction (the
/// first limit passed refuses, and the later ones do not count the request), and their refusals.
public struct LimitCounters: Sendable {
    /// What the store call counts, in order.
    public let counters: [RateLimitCounter]
    let limits: [RateLimiter.Limit]
    /// Seconds left in each counter's window, for its refusal's `Retry-After`.
    let secondsLeft: [Int]
}

extension LimitCounters {
    /// These counters and `more`'s, in that order: one store call counting both.
    public func adding(_ more: LimitCounters) -> LimitCounters {
        LimitCounters(counters: counters + more.counters, limits: limits + more.limits, secondsLeft: secondsLeft + more.secondsLeft)
    }
}

/// Thrown by a store call given rate-limit counters when the counter at `index` went past its
/// limit: the counters up to it are stored, and nothing else the call would have written.
public struct RateLimitExceeded: Error, Sendable, Equatable {
    /// The position of the counter that refuses, in the counters given.
    public var index: Int

    public init(index: Int) { self.index = index }
}

extension RateLimiter.Limit {
    /// The client's `/token` budget, one for every grant (password, refresh, PKCE, device key).
    public static func tokenRequests(from client: ClientInfo, _ limit: RateLimit) -> Self {
        Self("ip:token:\(client.limitKey)", limit)
    }
}
