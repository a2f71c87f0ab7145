import Foundation
import LatchkeyAPI
import LatchkeyCore
import LatchkeyStore
import Testing

/// The contract of ``VerificationStore``, held against the in-memory store, SQLite and
/// PostgreSQL (when `LATCHKEY_TEST_DATABASE_URL` names a server): a token is spent once with
/// everything it completes, wrong codes count up to the cap, a rejected code is left as it was,
/// racing right codes redeem once, an address taken meanwhile writes nothing, and the budget's
/// counters move with the redemption.
@Suite struct VerificationStoreContractTests {
    static func eachStore(_ body: (any VerificationStore) async throws -> Void) async throws {
        try await StoreContractTests.eachStore(memory: InMemoryStore() as any VerificationStore, body)
    }

    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// A new user with `tokens` outstanding (at most one of each kind, as sending keeps them).
    static func user(
        in store: any VerificationStore, _ tokens: [(OneTimeTokenKind, String)] = [(.confirmation, "123456")],
        edit: (inout UserRecord) -> Void = { _ in }
    ) async throws -> UserRecord {
        var (user, identity) = StoreContractTests.user("verify-\(UUID().uuidString.prefix(8))@example.com", now: now)
        edit(&user)
        let records = tokens.map { kind, code in
            OneTimeTokenRecord(
                id: UUID(), userID: user.id, kind: kind, relatesTo: kind == .emailChangeNew ? user.newEmail ?? "" : user.email ?? "",
                codeHash: OneTimeSecrets.codeHash(code, userID: user.id), linkHash: OneTimeSecrets.linkHash(UUID().uuidString),
                redirectTo: nil, createdAt: now, expiresAt: now.addingTimeInterval(600))
        }
        if let memory = store as? InMemoryStore {
            memory.add(user)
            records.forEach(memory.add)
            return user
        }
        let sql = store as! any AuthStore
        try await sql.createUser(user, identity: identity, token: records.first, outbox: [])
        if records.count > 1 { try await sql.replaceOneTimeTokens(Array(records.dropFirst()), user: user, outbox: []) }
        return try #require(try await sql.user(id: user.id))
    }

    /// Changes a stored user as another request would.
    static func edit(_ id: UUID, in store: any VerificationStore, _ change: @escaping (inout UserRecord) -> Void) async throws {
        if let memory = store as? InMemoryStore {
            memory.change(id, change)
            return
        }
        var user = try #require(try await store.user(id: id))
        change(&user)
        try await (store as! any AuthStore).updateUser(user)
    }

    static func redeem(
        _ code: String, _ user: UserRecord, _ kinds: [OneTimeTokenKind] = [.confirmation], in store: any VerificationStore,
        maxAttempts: Int = 5, completion: CodeRedemption.Completion = .emailSignIn(method: "otp"), limits: [RateLimitCounter] = []
    ) async throws -> RedemptionOutcome {
        var rules = TestRedemptions.code(
            code, .newest(userID: user.id, kinds: kinds), now: now, maxAttempts: maxAttempts, completion: completion)
        var outcome = try await store.redeem(rules, limits: limits)
        // An email change's notice is sealed outside the transaction, then the rules asked again (as `Verification` does).
        while case .needsNotice(let notice) = outcome {
            rules = rules.with(try notice.sealed(by: TestRedemptions.records(now: now).notices))
            outcome = try await store.redeem(rules, limits: [])
        }
        return outcome
    }

    /// The last confirmation of an email change asks for its notice to the old address first,
    /// writing nothing; with the notice sealed it moves the user and queues exactly that notice;
    /// a notice sealed for the user as they were before a change meanwhile is asked for again.
    @Test func anEmailChangesNoticeIsSealedBeforeTheTransactionForTheUserAsRead() async throws {
        try await Self.eachStore { store in
            let moving = "moved-\(UUID().uuidString.prefix(8))@example.com"
            let user = try await Self.user(in: store, [(.emailChangeNew, "222222")]) {
                $0.newEmail = moving
                $0.emailChangeConfirmationsNeeded = 1
            }
            let rules = TestRedemptions.code(
                "222222", .newest(userID: user.id, kinds: [.emailChangeNew]), now: Self.now, completion: .emailChange)
            guard case .needsNotice(let asked) = try await store.redeem(rules) else {
                Issue.record("the change completed without its notice")
                return
            }
            #expect(asked.oldEmail == user.email && asked.changed.email == moving)
            #expect(try await store.user(id: user.id)?.email == user.email)
            let sealed = try asked.sealed(by: TestRedemptions.records(now: Self.now).notices)
            // Another change lands on the user: the sealed notice no longer fits, and is asked for again.
            if let memory = store as? InMemoryStore {
                memory.change(user.id) { $0.userMetadata["moved"] = true }
            } else if let sql = store as? any AuthStore {
                var changed = try #require(try await sql.user(id: user.id))
                changed.userMetadata["moved"] = true
                try await sql.updateUser(changed)
            }
            guard case .needsNotice(let again) = try await store.redeem(rules.with(sealed)) else {
                Issue.record("a notice sealed for an older copy of the user was used")
                return
            }
            guard
                case .redeemed(let redemption) = try await store.redeem(
                    rules.with(try again.sealed(by: TestRedemptions.records(now: Self.now).notices)))
            else {
                Issue.record("the change did not complete")
                return
            }
            #expect(redemption.user.email == moving && redemption.outbox.map(\.recipient) == [user.email])
            #expect(try await store.user(id: user.id)?.email == moving)
        }
    }

    @Test func aRightCodeIsSpentOnceWithEverythingItCompletes() async throws {
        try await Self.eachStore { store in
            let user = try await Self.user(in: store, [(.confirmation, "123456"), (.recovery, "654321")])
            let outcome = try await store.redeem(
                TestRedemptions.code("123456", .newestForEmail(user.email!, kinds: [.confirmation]), now: Self.now))
            guard case .redeemed(let redemption) = outcome, let session = redemption.session else {
                Issue.record("expected a redemption, got \(outcome)")
                return
            }
            #expect(redemption.account?.session?.id == session.id && redemption.account?.user?.id == user.id)
            let stored = try #require(try await store.user(id: user.id))
            #expect(stored.emailConfirmedAt == Self.now && stored.lastSignInAt == Self.now && stored.version == user.version + 1)
            #expect(try await store.account(userID: user.id, sessionID: session.id).session?.id == session.id)
            // Spent, and the user's other outstanding code voided with it.
            guard case .notFound = try await Self.redeem("123456", user, in: store) else { Issue.record("spent twice"); return }
            guard case .notFound = try await Self.redeem("654321", user, [.recovery], in: store) else {
                Issue.record("the other code survived")
                return
            }
        }
    }

    @Test func wrongCodesCountUpToTheCap() async throws {
        try await Self.eachStore { store in
            let user = try await Self.user(in: store)
            var outcomes: [String] = []
            for code in ["000000", "000001", "123456"] {
                switch try await Self.redeem(code, user, in: store, maxAttempts: 2) {
                case .mismatch(let remaining): outcomes.append("mismatch \(remaining)")
                case .exhausted: outcomes.append("exhausted")
                case let other: outcomes.append("\(other)")
                }
            }
            #expect(outcomes == ["mismatch 1", "mismatch 0", "exhausted"])
        }
    }

    /// A banned user's right code is rejected and left as it was: no attempt counted, nothing
    /// spent; once the ban ends it redeems.
    @Test func aRejectedCodeIsLeftAsItWas() async throws {
        try await Self.eachStore { store in
            let user = try await Self.user(in: store) { $0.bannedUntil = Self.now.addingTimeInterval(60) }
            for _ in 0..<3 {
                guard case .rejected(let error) = try await Self.redeem("123456", user, in: store, maxAttempts: 2) else {
                    Issue.record("expected a rejection")
                    return
                }
                #expect(error == AuthError.userBanned)
            }
            try await Self.edit(user.id, in: store) { $0.bannedUntil = nil }
            guard case .redeemed = try await Self.redeem("123456", user, in: store, maxAttempts: 2) else {
                Issue.record("the code did not survive the rejection")
                return
            }
        }
    }

    @Test func racingRightCodesRedeemOnce() async throws {
        try await Self.eachStore { store in
            let user = try await Self.user(in: store)
            let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<6 {
                    group.addTask {
                        if case .redeemed = try await Self.redeem("123456", user, in: store) { return true }
                        return false
                    }
                }
                return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
            }
            #expect(winners == 1)
        }
    }

    /// The last email-change confirmation moves the user to an address another user took
    /// meanwhile: a duplicate, and nothing written (the code can still be tried).
    @Test func anAddressTakenMeanwhileWritesNothing() async throws {
        try await Self.eachStore { store in
            let taken = "taken-\(UUID().uuidString.prefix(8))@example.com"
            let user = try await Self.user(in: store, [(.emailChangeNew, "222222")]) {
                $0.newEmail = taken
                $0.emailChangeConfirmationsNeeded = 1
            }
            _ = try await Self.user(in: store, []) { $0.email = taken }
            do {
                _ = try await Self.redeem("222222", user, [.emailChangeNew], in: store, completion: .emailChange)
                Issue.record("moved onto a taken address")
            } catch let error as StoreError {
                #expect(error.isDuplicate)
            }
            #expect(try await store.user(id: user.id)?.email == user.email)
            guard case .mismatch = try await Self.redeem("000000", user, [.emailChangeNew], in: store, completion: .emailChange) else {
                Issue.record("the code was spent")
                return
            }
        }
    }

    /// The budget's counters move with the redemption; past the limit only the counters are
    /// stored, and the code is left as it was.
    @Test func theBudgetCountsWithTheRedemption() async throws {
        try await Self.eachStore { store in
            let user = try await Self.user(in: store)
            let key = "ip:verify:\(UUID().uuidString)"
            let limit = RateLimitCounter(key: key, windowStart: Self.now, expiresAt: Self.now.addingTimeInterval(300), limit: 1)
            guard case .mismatch = try await Self.redeem("000000", user, in: store, limits: [limit]) else {
                Issue.record("expected a mismatch")
                return
            }
            await #expect(throws: RateLimitExceeded(index: 0)) { _ = try await Self.redeem("123456", user, in: store, limits: [limit]) }
            guard case .redeemed = try await Self.redeem("123456", user, in: store) else {
                Issue.record("the refused request spent the code")
                return
            }
        }
    }

    /// Users waiting to move to one address or number come oldest request first.
    @Test func usersWaitingForAnAddressComeOldestFirst() async throws {
        try await Self.eachStore { store in
            let address = "wanted-\(UUID().uuidString.prefix(8))@example.com"
            let number = "1555\(Int.random(in: 1_000_000...9_999_999))"
            var ids: [UUID] = []
            for age in [10.0, 30.0, 20.0] {
                let user = try await Self.user(in: store, []) {
                    $0.newEmail = address
                    $0.emailChangeSentAt = Self.now.addingTimeInterval(-age)
                    $0.newPhone = number
                    $0.phoneChangeSentAt = Self.now.addingTimeInterval(-age)
                }
                ids.append(user.id)
            }
            let oldestFirst = [ids[1], ids[2], ids[0]]
            #expect(try await store.users(newEmail: address).map(\.id) == oldestFirst)
            #expect(try await store.users(newPhone: number).map(\.id) == oldestFirst)
        }
    }
}
