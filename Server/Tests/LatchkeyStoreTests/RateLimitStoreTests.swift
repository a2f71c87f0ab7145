import Foundation
import LatchkeyCore
import LatchkeyStore
import Testing

/// Several rate-limit counters move in one commit, exactly as consecutive hits would: held against
/// the in-memory store, SQLite and PostgreSQL.
@Suite struct RateLimitStoreTests {
    static func eachStore(_ body: (any RateLimitStore) async throws -> Void) async throws {
        try await StoreContractTests.eachStore(memory: InMemoryStore() as any RateLimitStore, body)
    }

    @Test func countersMoveTogetherAndStopAtTheFirstOnePastItsLimit() async throws {
        try await Self.eachStore { store async throws in
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            let end = start.addingTimeInterval(3600)
            func counters(_ addressLimit: Int) -> [RateLimitCounter] {
                [
                    RateLimitCounter(key: "email:addr:ada", windowStart: start, expiresAt: end, limit: addressLimit),
                    RateLimitCounter(key: "email:all", windowStart: start, expiresAt: end, limit: 100),
                ]
            }
            #expect(try await store.incrementRateLimits(counters(2)) == [1, 1])
            #expect(try await store.incrementRateLimits(counters(2)) == [2, 2])
            // The address is past its limit: the global counter does not count the refused event.
            #expect(try await store.incrementRateLimits(counters(2)) == [3])
            #expect(try await store.rateLimitCount(key: "email:all", windowStart: start) == 2)
            #expect(try await store.rateLimitCount(key: "email:addr:ada", windowStart: start) == 3)
            #expect(try await store.incrementRateLimits([]) == [])
        }
    }

    @Test func aLimiterRefusesAtTheFirstLimitAndSpendsNoneAfterIt() async throws {
        try await Self.eachStore { store async throws in
            let time = ManualTimeSource(Date(timeIntervalSince1970: 1_800_000_000))
            let limiter = RateLimiter(store: store, time: time)
            let address = RateLimit(count: 1, period: 3600)
            let global = RateLimit(count: 10, period: 3600)
            try await limiter.hit([("email:addr:a", address), ("email:all", global)])
            await #expect(throws: AuthError.self) { try await limiter.hit([("email:addr:a", address), ("email:all", global)]) }
            await #expect(throws: AuthError.self) { try await limiter.hit([("email:addr:a", address), ("email:all", global)]) }
            let window = Date(timeIntervalSince1970: 1_800_000_000 - 1_800_000_000.truncatingRemainder(dividingBy: 3600))
            #expect(try await store.rateLimitCount(key: "email:all", windowStart: window) == 1)
            try await limiter.hit([("email:addr:b", address), ("email:all", global)])
            #expect(try await store.rateLimitCount(key: "email:all", windowStart: window) == 2)
        }
    }
}
