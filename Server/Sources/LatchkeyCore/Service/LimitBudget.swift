import Foundation
import Synchronization

/// A request's rate limits, counted in the transaction of its main write (one commit instead of
/// two) when that write takes them, or on their own otherwise.
///
/// Made by ``RateLimiter/counting(_:_:)``, which counts the limits on their own at the end when no
/// store call took them (a validation error, an answer that writes nothing). A branch whose write
/// does not take them calls ``charge()`` before it writes, so that a request over a limit never
/// writes anything but its counters.
public final class LimitBudget: Sendable {
    /// One limit of the request, and the error that refuses a request past it.
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

    private let limiter: RateLimiter
    private let limits: [Limit]
    private let spent = Atomic<Bool>(false)

    init(limiter: RateLimiter, limits: [Limit]) {
        self.limiter = limiter
        self.limits = limits.filter { !$0.limit.isOff }
    }

    /// Whether the limits were counted (by a store call or by ``charge()``).
    public var isSpent: Bool { spent.load(ordering: .acquiring) }

    /// Runs a store call that counts the request's limits, then `extra`, in its transaction, in
    /// order (the first limit passed refuses, and the later ones do not count the request). The
    /// store throws ``RateLimitExceeded`` for a limit passed, having stored only the counters:
    /// this answers with that limit's refusal. Once spent, later calls get only `extra`.
    public func spend<T>(
        adding extra: [Limit] = [], _ call: ([RateLimitCounter]) async throws -> T
    ) async throws -> T {
        let all = (isSpent ? [] : limits) + extra.filter { !$0.limit.isOff }
        let (counters, windows) = limiter.counters(all)
        do {
            let value = try await call(counters)
            spent.store(true, ordering: .releasing)
            return value
        } catch let exceeded as RateLimitExceeded where all.indices.contains(exceeded.index) {
            spent.store(true, ordering: .releasing)
            throw limiter.refusing(all[exceeded.index].key, all[exceeded.index].refusal(windows[exceeded.index].secondsLeft))
        }
    }

    /// Says that the store call given to ``spend(adding:_:)`` stored nothing, its counters
    /// neither (it answered without writing: an insert that found its row taken), so that they
    /// are counted again.
    public func storedNothing() {
        spent.store(false, ordering: .releasing)
    }

    /// Counts the limits now, in a commit of their own, unless they were counted already; throws
    /// the refusal of the first limit passed.
    public func charge() async throws {
        guard !spent.exchange(true, ordering: .acquiringAndReleasing) else { return }
        try await limiter.hit(limits)
    }
}

/// Thrown by a store call given rate-limit counters when the counter at `index` went past its
/// limit: the counters up to it are stored, and nothing else the call would have written.
public struct RateLimitExceeded: Error, Sendable, Equatable {
    /// The position of the counter that refuses, in the counters given.
    public var index: Int

    public init(index: Int) { self.index = index }
}

extension LimitBudget.Limit {
    /// The client's `/token` budget, one for every grant (password, refresh, PKCE, device key).
    public static func tokenRequests(from client: ClientInfo, _ limit: RateLimit) -> Self {
        Self("ip:token:\(client.limitKey)", limit)
    }
}
