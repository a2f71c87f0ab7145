import Foundation
import LatchkeyAPI
import LatchkeyCore
import LatchkeyStore
import Synchronization
import Testing

/// The contract every ``AuthStore`` keeps, run against each implementation (SQLite on disk now).
@Suite struct StoreContractTests {
    /// Runs `body` against every store, each on a fresh database that is closed afterwards:
    /// SQLite on disk, and PostgreSQL (in a schema of its own) when `LATCHKEY_TEST_DATABASE_URL`
    /// names a server.
    static func eachStore(_ body: (any AuthStore) async throws -> Void) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString)/db.sqlite").path
        try await run(try await SQLiteDatabase.open(path: path), body)
        if let postgres = try await TestPostgres.open() {
            try await run(postgres.database, body)
            try await postgres.drop()
        }
    }

    /// Runs `body` against `memory`, the in-memory store, and then against every SQL store, seen as
    /// the same narrow store protocol (`Store`): the contract of that protocol over three stores.
    static func eachStore<Store>(memory: Store, _ body: (Store) async throws -> Void) async throws {
        try await body(memory)
        try await eachStore { store in try await body(store as! Store) }
    }

    /// A new user id, with its row in `users` when `store` is a SQL store (whose rows reference it).
    static func owner(in store: Any) async throws -> UUID {
        let (user, identity) = Self.user("owner-\(UUID().uuidString.prefix(8))@example.com")
        if let store = store as? any AuthStore { try await store.createUser(user, identity: identity, token: nil, outbox: []) }
        return user.id
    }

    static func run(_ database: any SQLDatabase, _ body: (any AuthStore) async throws -> Void) async throws {
        let store = SQLAuthStore(database: database)
        do {
            try await store.migrate()
            try await store.migrate()  // idempotent
            try await body(store)
        } catch {
            try await database.close()
            throw error
        }
        try await database.close()
    }

    static func user(_ email: String, now: Date = Date()) -> (UserRecord, IdentityRecord) {
        let id = UUID()
        let user = UserRecord(
            id: id, aud: "authenticated", role: "authenticated", email: email, passwordHash: nil, appMetadata: [:],
            userMetadata: ["a": 1], createdAt: now, updatedAt: now)
        let identity = IdentityRecord(
            id: UUID(), userID: id, provider: "email", providerID: id.uuidString, identityData: [:], email: email, createdAt: now,
            updatedAt: now)
        return (user, identity)
    }

    static func token(for user: UserRecord, now: Date, code: String = "123456") -> OneTimeTokenRecord {
        OneTimeTokenRecord(
            id: UUID(), userID: user.id, kind: .confirmation, relatesTo: user.email ?? "",
            codeHash: OneTimeSecrets.codeHash(code, userID: user.id), linkHash: UUID().uuidString, redirectTo: nil, createdAt: now,
            expiresAt: now.addingTimeInterval(600))
    }

    static func mail(to recipient: String, due: Date = Date()) -> OutboxRecord {
        OutboxRecord(recipient: recipient, payload: "sealed", nextAttemptAt: due, createdAt: due)
    }

    /// Seeding inserts a whole batch or nothing of it.
    @Test func manyUsersGoInTogetherOrNotAtAll() async throws {
        try await Self.eachStore { store in
            let batch = (0..<300).map { Self.user("bulk-\($0)@example.com") }
            try await store.insertUsers(batch.map { (user: $0.0, identity: $0.1) })
            #expect(try await store.user(email: "bulk-299@example.com")?.id == batch[299].0.id)
            #expect(try await store.identities(userID: batch[0].0.id).count == 1)
            let overlapping = [Self.user("bulk-new@example.com"), Self.user("bulk-5@example.com")]
            await #expect(throws: StoreError.self) {
                try await store.insertUsers(overlapping.map { (user: $0.0, identity: $0.1) })
            }
            #expect(try await store.user(email: "bulk-new@example.com") == nil)
        }
    }

    @Test func duplicateEmailIsRefusedAndNothingHalfWritten() async throws {
        try await Self.eachStore { store async throws in
            let (user, identity) = Self.user("same@example.com")
            try await store.createUser(
                user, identity: identity, token: Self.token(for: user, now: Date()), outbox: [Self.mail(to: "same@example.com")])
            let (other, otherIdentity) = Self.user("same@example.com")
            await #expect(throws: StoreError.self) {
                try await store.createUser(
                    other, identity: otherIdentity, token: Self.token(for: other, now: Date()), outbox: [Self.mail(to: "second")])
            }
            #expect(try await store.user(id: other.id) == nil)
            #expect(try await store.pendingOutbox(limit: 10).map(\.recipient) == ["same@example.com"])
            #expect(try await store.user(email: "same@example.com")?.id == user.id)
            #expect(try await store.identities(userID: user.id).count == 1)
        }
    }

    @Test func aUserWriteLandsOnlyOnTheVersionItWasReadAt() async throws {
        try await Self.eachStore { store in
            let (user, identity) = Self.user("versioned@example.com")
            try await store.createUser(user, identity: identity, token: nil, outbox: [])
            let read = try #require(try await store.user(id: user.id))
            var banned = read
            banned.bannedUntil = Date().addingTimeInterval(3600)
            try await store.updateUser(banned)
            // A copy read before the ban, written after it: refused, and the ban stays.
            var stale = read
            stale.lastSignInAt = Date()
            do {
                try await store.updateUser(stale)
                Issue.record("a stale copy was written over the ban")
            } catch let error as StoreError {
                #expect(error.isConflict)
            }
            let stored = try #require(try await store.user(id: user.id))
            #expect(stored.bannedUntil != nil && stored.lastSignInAt == nil)
            #expect(stored.version == read.version + 1)
            // A fresh copy writes; a deleted user is not found, not a conflict.
            var fresh = stored
            fresh.lastSignInAt = Date()
            try await store.updateUser(fresh)
            #expect(try await store.deleteUser(id: user.id))
            do {
                try await store.updateUser(fresh)
                Issue.record("a deleted user was written")
            } catch let error as StoreError {
                #expect(error.isNotFound)
            }
        }
    }

    /// Submits `code` for the newest confirmation code of `user`; a match signs in with a session.
    static func redeem(_ code: String, of user: UserRecord, in store: any AuthStore, now: Date, maxAttempts: Int) async throws
        -> RedemptionOutcome
    {
        try await store.redeem(
            TestRedemptions.code(code, .newest(userID: user.id, kinds: [.confirmation]), now: now, maxAttempts: maxAttempts))
    }

    @Test func redemptionCountsAttemptsAndConsumesOnce() async throws {
        try await Self.eachStore { store async throws in
            let now = Date()
            let (user, identity) = Self.user("code@example.com")
            try await store.createUser(user, identity: identity, token: Self.token(for: user, now: now), outbox: [])
            @Sendable func attempt(_ code: String) async throws -> RedemptionOutcome {
                try await Self.redeem(code, of: user, in: store, now: now, maxAttempts: 3)
            }
            guard case .mismatch(let remaining) = try await attempt("000000") else { Issue.record("expected mismatch"); return }
            #expect(remaining == 2)
            guard case .redeemed = try await attempt("123456") else { Issue.record("expected redemption"); return }
            guard case .notFound = try await attempt("123456") else { Issue.record("expected consumed"); return }
        }
    }

    /// Guesses at one code sent at once are compared at most `maxAttempts` times in all, and one
    /// of many right answers at once redeems it (on PostgreSQL the code's row lock does this at
    /// `READ COMMITTED`; without it, concurrent guesses each read the same attempt count).
    @Test func concurrentGuessesKeepTheAttemptCapAndOneRedemption() async throws {
        try await Self.eachStore { store async throws in
            let now = Date()
            let (user, identity) = Self.user("guesses@example.com")
            try await store.createUser(user, identity: identity, token: Self.token(for: user, now: now), outbox: [])
            @Sendable func attempt(_ code: String) async throws -> RedemptionOutcome {
                try await Self.redeem(code, of: user, in: store, now: now, maxAttempts: 5)
            }
            let guesses = try await withThrowingTaskGroup(of: RedemptionOutcome.self) { group in
                for _ in 0..<4 { group.addTask { try await attempt("000000") } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(guesses.allSatisfy { if case .mismatch = $0 { true } else { false } })
            // One attempt left: of twenty at once, one is compared (and right); the code is then
            // consumed or exhausted for every other.
            let answers = try await withThrowingTaskGroup(of: RedemptionOutcome.self) { group in
                for index in 0..<20 { group.addTask { try await attempt(index.isMultiple(of: 2) ? "123456" : "000000") } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let compared = answers.filter {
                switch $0 {
                case .redeemed, .mismatch: true
                default: false
                }
            }
            #expect(compared.count == 1)
            #expect(answers.filter { if case .redeemed = $0 { true } else { false } }.count <= 1)
        }
    }

    @Test func rateLimitCountersAreShared() async throws {
        try await Self.eachStore { store async throws in
            let window = Date(timeIntervalSince1970: 1000)
            for expected in 1...5 {
                #expect(
                    try await store.incrementRateLimit(key: "k", windowStart: window, expiresAt: window.addingTimeInterval(60)) == expected)
            }
            #expect(try await store.rateLimitCount(key: "k", windowStart: window) == 5)
            #expect(try await store.rateLimitCount(key: "other", windowStart: window) == 0)
            #expect(try await store.deleteExpired(now: window.addingTimeInterval(120)) >= 1)
            #expect(try await store.rateLimitCount(key: "k", windowStart: window) == 0)
        }
    }
}

extension StoreContractTests {
    /// A write that has returned is visible to every later read, even while other reads and
    /// writes run concurrently (a shared reader connection used to keep an old WAL snapshot).
    @Test func readsSeeEveryCommittedWriteUnderLoad() async throws {
        try await Self.eachStore { store async throws in
            for index in 0..<300 {
                try await store.appendMailbox(EmailMessage(to: ["bulk\(index)@example.com"], subject: "", text: "", html: ""), at: Date())
            }
            let done = ManualFlag()
            let stale = try await withThrowingTaskGroup(of: Int.self) { group in
                // Readers that keep long statements in flight on the reader connections.
                for _ in 0..<4 {
                    group.addTask {
                        while !done.isSet { _ = try await store.mailbox(to: nil, limit: 300) }
                        return 0
                    }
                }
                for worker in 0..<8 {
                    group.addTask {
                        var misses = 0
                        let address = "worker\(worker)@example.com"
                        for round in 1...40 {
                            try await store.appendMailbox(
                                EmailMessage(to: [address], subject: "\(round)", text: "", html: ""), at: Date())
                            let newest = try await store.mailbox(to: address, limit: 1).first?.message.subject
                            if newest != "\(round)" { misses += 1 }
                        }
                        return misses
                    }
                }
                var total = 0
                for _ in 0..<8 { total += try await group.next() ?? 0 }
                done.set()
                return try await group.reduce(total, +)
            }
            #expect(stale == 0)
        }
    }
}

/// A flag one task sets and others poll.
final class ManualFlag: Sendable {
    private let value = Mutex(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}

extension StoreContractTests {
    @Test func mailboxFiltersByExactAddressNewestFirst() async throws {
        try await Self.eachStore { store async throws in
            let base = Date(timeIntervalSince1970: 1_800_000_000)
            try await store.appendMailbox(EmailMessage(to: ["axb@example.com"], subject: "other", text: "", html: ""), at: base)
            try await store.appendMailbox(
                EmailMessage(to: ["a_b@example.com"], subject: "old", text: "", html: ""), at: base.addingTimeInterval(1))
            try await store.appendMailbox(
                EmailMessage(to: ["a_b@example.com"], subject: "new", text: "", html: ""), at: base.addingTimeInterval(2))
            #expect(try await store.mailbox(to: "a_b@example.com", limit: 10).map(\.message.subject) == ["new", "old"])
            #expect(try await store.mailbox(to: "A_B@example.com", limit: 1).map(\.message.subject) == ["new"])
            #expect(try await store.mailbox(to: "%@example.com", limit: 10).isEmpty)
            #expect(try await store.mailbox(to: nil, limit: 10).count == 3)
        }
    }
}
