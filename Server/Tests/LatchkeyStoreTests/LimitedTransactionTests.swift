import Foundation
import LatchkeyCore
import LatchkeyStore
import Testing

/// A request's rate-limit counters move in the transaction of its write (#16 item 3): together
/// with it on the happy path, alone when one is past its limit.
@Suite struct LimitedTransactionTests {
    static let window = Date(timeIntervalSince1970: 1_800_000_000)

    static func limit(_ key: String, _ count: Int) -> RateLimitCounter {
        RateLimitCounter(key: key, windowStart: window, expiresAt: window.addingTimeInterval(300), limit: count)
    }

    static func session(for user: UserRecord, now: Date) -> SessionRecord {
        SessionRecord(id: UUID(), userID: user.id, amr: [], refreshSalt: [1, 2, 3], createdAt: now, updatedAt: now)
    }

    @Sendable static func redeem(
        _ store: any AuthStore, email: String, code: String, limits: [RateLimitCounter], now: Date, maxAttempts: Int = 5
    ) async throws -> RedemptionOutcome {
        try await store.redeem(
            TestRedemptions.code(code, .newestForEmail(email, kinds: [.confirmation]), now: now, maxAttempts: maxAttempts),
            limits: limits)
    }

    @Test func aCodeIsRedeemedByAddressWithItsCountersAndItsSessionAnswerReads() async throws {
        try await StoreContractTests.eachStore { store async throws in
            let now = Date()
            let (user, identity) = StoreContractTests.user("limited@example.com")
            try await store.createUser(user, identity: identity, token: StoreContractTests.token(for: user, now: now), outbox: [])
            let outcome = try await Self.redeem(
                store, email: "limited@example.com", code: "123456", limits: [Self.limit("ip:verify:a", 5)], now: now)
            guard case .redeemed(let redemption) = outcome else {
                Issue.record("expected a redemption, got \(outcome)")
                return
            }
            // The identities and factors for the answer were read in the same transaction.
            let account = try #require(redemption.account)
            #expect(account.identities.map(\.id) == [identity.id])
            #expect(account.factors.isEmpty)
            #expect(account.session?.id == redemption.session?.id)
            #expect(try await store.rateLimitCount(key: "ip:verify:a", windowStart: Self.window) == 1)
            #expect(try await store.session(id: try #require(redemption.session?.id)) != nil)
        }
    }

    @Test func anUnknownAddressFindsNoCodeAndStillCounts() async throws {
        try await StoreContractTests.eachStore { store async throws in
            let outcome = try await Self.redeem(
                store, email: "nobody@example.com", code: "123456", limits: [Self.limit("ip:verify:b", 5)], now: Date())
            guard case .notFound = outcome else {
                Issue.record("expected notFound, got \(outcome)")
                return
            }
            #expect(try await store.rateLimitCount(key: "ip:verify:b", windowStart: Self.window) == 1)
        }
    }

    @Test func aRedemptionPastALimitStoresItsCountersAndNothingElse() async throws {
        try await StoreContractTests.eachStore { store async throws in
            let now = Date()
            let (user, identity) = StoreContractTests.user("over@example.com")
            try await store.createUser(user, identity: identity, token: StoreContractTests.token(for: user, now: now), outbox: [])
            _ = try await store.incrementRateLimits([Self.limit("ip:verify:c", 2), Self.limit("ip:verify:c", 2)])
            // A wrong code past the limit: refused before its attempt counts (one attempt allowed).
            await #expect(throws: RateLimitExceeded(index: 1)) {
                try await Self.redeem(
                    store, email: "over@example.com", code: "000000",
                    limits: [Self.limit("ip:verify:first", 10), Self.limit("ip:verify:c", 2)], now: now, maxAttempts: 1)
            }
            #expect(try await store.rateLimitCount(key: "ip:verify:first", windowStart: Self.window) == 1)
            #expect(try await store.rateLimitCount(key: "ip:verify:c", windowStart: Self.window) == 3)
            // The code is neither spent nor its one attempt used.
            guard
                case .redeemed = try await Self.redeem(
                    store, email: "over@example.com", code: "123456", limits: [], now: now, maxAttempts: 1)
            else {
                Issue.record("the refused request changed the code")
                return
            }
        }
    }

    @Test func aRefreshPastALimitRotatesNothing() async throws {
        try await StoreContractTests.eachStore { store async throws in
            let now = Date()
            let (user, identity) = StoreContractTests.user("refresh-limit@example.com")
            try await store.createUser(user, identity: identity, token: nil, outbox: [])
            let session = Self.session(for: user, now: now)
            try await store.createSession(session, user: user)
            let codec = RefreshTokenCodec(serverSecret: Array(repeating: 1, count: 32))
            func rules(_ counter: Int64) -> SessionRefresh.Rules {
                SessionRefresh.Rules(
                    sessionID: session.id, token: codec.encode(sessionID: session.id, counter: counter, salt: session.refreshSalt),
                    now: now,
                    settings: SessionSettings(), codec: codec, client: ClientInfo(ip: "192.0.2.4"), eventID: UUID())
            }
            let first = try await store.refresh(rules(0), limits: [Self.limit("ip:token:d", 1)])
            guard case .rotate? = first?.0 else { throw AuthError.refreshTokenNotFound }
            await #expect(throws: RateLimitExceeded(index: 0)) {
                try await store.refresh(rules(1), limits: [Self.limit("ip:token:d", 1)])
            }
            #expect(try await store.rateLimitCount(key: "ip:token:d", windowStart: Self.window) == 2)
            #expect(try await store.session(id: session.id)?.refreshCounter == 1)
        }
    }

    @Test func aNewUserPastALimitIsNotStored() async throws {
        try await StoreContractTests.eachStore { store async throws in
            let (user, identity) = StoreContractTests.user("new-over@example.com")
            _ = try await store.incrementRateLimits([Self.limit("ip:otp:e", 1)])
            await #expect(throws: RateLimitExceeded(index: 0)) {
                try await store.createUser(
                    user, identity: identity, token: nil, outbox: [StoreContractTests.mail(to: "new-over@example.com")], audit: [],
                    limits: [Self.limit("ip:otp:e", 1)])
            }
            #expect(try await store.user(email: "new-over@example.com") == nil)
            #expect(try await store.pendingOutbox(limit: 10).isEmpty)
            #expect(try await store.rateLimitCount(key: "ip:otp:e", windowStart: Self.window) == 2)
            try await store.createUser(
                user, identity: identity, token: nil, outbox: [], audit: [], limits: [Self.limit("ip:otp:other", 1)])
            #expect(try await store.user(email: "new-over@example.com")?.id == user.id)
        }
    }
}
