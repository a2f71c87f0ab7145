import Foundation
import LatchkeyAPI
import LatchkeyCore
import LatchkeyStore
import Testing

/// The contract of ``CodeStore``, held against the in-memory store, SQLite and PostgreSQL
/// (when `LATCHKEY_TEST_DATABASE_URL` names a server): a new code replaces only the older one
/// of its kind, a stale user writes nothing, a new user goes in with its code or not at all,
/// its budget counts in the same step, and a discarded code is gone. Codes are checked by
/// redeeming them (``VerificationStore``), as `/verify` does.
@Suite struct CodeStoreContractTests {
    typealias Store = CodeStore & VerificationStore

    static func eachStore(_ body: (any Store) async throws -> Void) async throws {
        try await StoreContractTests.eachStore(memory: InMemoryStore() as any Store, body)
    }

    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func token(_ kind: OneTimeTokenKind, _ code: String, for user: UserRecord, age: TimeInterval = 0) -> OneTimeTokenRecord {
        OneTimeTokenRecord(
            id: UUID(), userID: user.id, kind: kind, relatesTo: user.email ?? "", codeHash: OneTimeSecrets.codeHash(code, userID: user.id),
            linkHash: OneTimeSecrets.linkHash(UUID().uuidString), redirectTo: nil, createdAt: now.addingTimeInterval(-age),
            expiresAt: now.addingTimeInterval(600))
    }

    /// A new user, stored with `token` (made for it) through the protocol.
    static func user(in store: any Store, token: ((UserRecord) -> OneTimeTokenRecord)? = nil) async throws -> UserRecord {
        let (user, identity) = StoreContractTests.user("codes-\(UUID().uuidString.prefix(8))@example.com", now: now)
        try await store.createUser(user, identity: identity, token: token?(user), outbox: [], audit: [], limits: [])
        return try #require(try await store.user(id: user.id))
    }

    /// What `code` of `kinds` does now, spent without voiding the user's other codes.
    static func redeem(_ code: String, _ user: UserRecord, _ kinds: [OneTimeTokenKind], in store: any Store) async throws -> String {
        switch try await store.redeem(TestRedemptions.code(code, .newest(userID: user.id, kinds: kinds), now: now, completion: .nonce)) {
        case .redeemed: "redeemed"
        case .mismatch: "mismatch"
        case .notFound: "notFound"
        case let other: "\(other)"
        }
    }

    @Test func aNewCodeReplacesOnlyTheOlderOneOfItsKind() async throws {
        try await Self.eachStore { store in
            let user = try await Self.user(in: store) { Self.token(.confirmation, "111111", for: $0, age: 30) }
            try await store.replaceOneTimeTokens([Self.token(.recovery, "333333", for: user, age: 20)], user: user, outbox: [], audit: [])
            let moved = try #require(try await store.user(id: user.id))
            #expect(moved.version == user.version + 1)
            try await store.replaceOneTimeTokens([Self.token(.confirmation, "222222", for: moved)], user: moved, outbox: [], audit: [])
            #expect(try await Self.redeem("111111", user, [.confirmation], in: store) == "mismatch")
            #expect(try await Self.redeem("333333", user, [.recovery], in: store) == "redeemed")
            #expect(try await Self.redeem("222222", user, [.confirmation], in: store) == "redeemed")
        }
    }

    /// A user read before another request wrote it is a conflict, and nothing is written: the
    /// caller decides again on a fresh copy.
    @Test func aStaleUserWritesNothing() async throws {
        try await Self.eachStore { store in
            let user = try await Self.user(in: store) { Self.token(.confirmation, "111111", for: $0, age: 30) }
            try await store.replaceOneTimeTokens([], user: user, outbox: [], audit: [])
            do {
                try await store.replaceOneTimeTokens([Self.token(.confirmation, "222222", for: user)], user: user, outbox: [], audit: [])
                Issue.record("a stale copy was written")
            } catch let error as StoreError {
                #expect(error.isConflict)
            }
            #expect(try await Self.redeem("222222", user, [.confirmation], in: store) == "mismatch")
            #expect(try await Self.redeem("111111", user, [.confirmation], in: store) == "redeemed")
        }
    }

    /// A taken address or number is a duplicate, and the user and its code are not stored.
    @Test func aNewUserGoesInWithItsCodeOrNotAtAll() async throws {
        try await Self.eachStore { store in
            let first = try await Self.user(in: store)
            var (second, identity) = StoreContractTests.user(first.email!, now: Self.now)
            do {
                try await store.createUser(
                    second, identity: identity, token: Self.token(.confirmation, "123456", for: second), outbox: [], audit: [], limits: [])
                Issue.record("a taken address was stored twice")
            } catch let error as StoreError {
                #expect(error.isDuplicate)
            }
            #expect(try await store.user(id: second.id) == nil)
            #expect(try await Self.redeem("123456", second, [.confirmation], in: store) == "notFound")
            // A number taken by another user, on a change of the user's own row, is a duplicate too.
            second.email = "other-\(UUID().uuidString.prefix(8))@example.com"
            second.phone = "1555\(Int.random(in: 1_000_000...9_999_999))"
            identity.email = second.email
            try await store.createUser(second, identity: identity, token: nil, outbox: [], audit: [], limits: [])
            var taking = first
            taking.phone = second.phone
            do {
                try await store.replaceOneTimeTokens([], user: taking, outbox: [], audit: [])
                Issue.record("a taken number was stored twice")
            } catch let error as StoreError {
                #expect(error.isDuplicate)
            }
        }
    }

    /// The sign-up's budget counts in the step that stores it; past the limit only the counter
    /// moves.
    @Test func aNewUserCountsItsBudgetInTheSameStep() async throws {
        try await Self.eachStore { store in
            let key = "ip:otp:\(UUID().uuidString)"
            let limit = RateLimitCounter(key: key, windowStart: Self.now, expiresAt: Self.now.addingTimeInterval(300), limit: 1)
            let (user, identity) = StoreContractTests.user("budget-\(UUID().uuidString.prefix(8))@example.com", now: Self.now)
            try await store.createUser(user, identity: identity, token: nil, outbox: [], audit: [], limits: [limit])
            let (refused, refusedIdentity) = StoreContractTests.user("budget-\(UUID().uuidString.prefix(8))@example.com", now: Self.now)
            await #expect(throws: RateLimitExceeded(index: 0)) {
                try await store.createUser(refused, identity: refusedIdentity, token: nil, outbox: [], audit: [], limits: [limit])
            }
            #expect(try await store.user(id: user.id) != nil)
            #expect(try await store.user(id: refused.id) == nil)
        }
    }

    @Test func aDiscardedCodeIsGone() async throws {
        try await Self.eachStore { store in
            let token = Self.token(.sms, "123456", for: try await Self.user(in: store))
            let user = try #require(try await store.user(id: token.userID))
            try await store.replaceOneTimeTokens([token], user: user, outbox: [], audit: [])
            try await store.discardOneTimeToken(id: token.id)
            #expect(try await Self.redeem("123456", user, [.sms], in: store) == "notFound")
        }
    }
}
