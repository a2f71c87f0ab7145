import Foundation
import LatchkeyAPI
import Synchronization
import Testing

@testable import LatchkeyCore

/// `/verify` against the in-memory store, a manual clock and seeded randomness: newest code
/// only, the attempt cap and its lock-out, expiry, a ban (also one landing in flight), links
/// with and without PKCE, both halves of an email change, phone codes, the client's budget and
/// hostile input — without HTTP or a database.
@Suite struct VerificationTests {
    static let client = ClientInfo(ip: "192.0.2.5", userAgent: "test")
    static let decoder = JSONDecoder()

    struct Fixture {
        let memory = InMemoryStore()
        let time = ManualTimeSource()
        let verification: Verification
        let user: UserRecord

        init(
            confirmed: Bool = false, maxAttempts: Int = 3, verifyPerIP: Int = 100, edit: (inout UserRecord) -> Void = { _ in },
            store: ((InMemoryStore) -> any VerificationStore)? = nil
        ) {
            let now = time.now()
            var user = UserRecord(
                id: UUID(), aud: "authenticated", role: "authenticated", email: "ada@example.com", passwordHash: nil,
                emailConfirmedAt: confirmed ? now : nil, appMetadata: ["provider": "email", "providers": ["email"]], userMetadata: [:],
                createdAt: now, updatedAt: now)
            edit(&user)
            self.user = user
            memory.add(user)
            verification = Verification(
                store: store?(memory) ?? memory, limiter: RateLimiter(store: memory, time: time),
                settings: Verification.Settings(
                    maxAttempts: maxAttempts, verifyPerIP: RateLimit(count: verifyPerIP, period: 300), flowStateExpiry: 300),
                records: TestSessionParts.records(accounts: memory, time: time, random: SeededRandomSource(seed: 21)),
                redirects: RedirectPolicy(siteURL: "http://localhost:3000", allowList: ["http://localhost:3000/**"]))
        }

        /// Stores a token of `kind` for the user whose code is `code` and whose link secret is
        /// `link`, sent `age` seconds ago.
        @discardableResult
        func issue(
            _ kind: OneTimeTokenKind, code: String = "123456", link: String = "the-link-secret", to address: String? = nil,
            age: TimeInterval = 0, redirectTo: String? = nil, challenge: PKCEChallenge? = nil, for userID: UUID? = nil
        ) -> OneTimeTokenRecord {
            let owner = userID ?? user.id
            let sent = time.now().addingTimeInterval(-age)
            let token = OneTimeTokenRecord(
                id: UUID(), userID: owner, kind: kind, relatesTo: address ?? user.email ?? "",
                codeHash: OneTimeSecrets.codeHash(code, userID: owner), linkHash: OneTimeSecrets.linkHash(link), redirectTo: redirectTo,
                challenge: challenge, createdAt: sent, expiresAt: sent.addingTimeInterval(600))
            memory.add(token)
            return token
        }

        func verify(_ json: String) async throws -> Verification.Outcome {
            try await verification.verify(
                VerificationTests.decoder.decode(VerifyRequest.self, from: Data(json.utf8)), client: VerificationTests.client)
        }

        func code(_ code: String, type: String = "email", email: String = "ada@example.com") async throws -> Session {
            guard case .session(let session, _) = try await verify(#"{"type":"\#(type)","email":"\#(email)","token":"\#(code)"}"#) else {
                throw AuthError.otpInvalid
            }
            return session
        }

        func events(_ action: AuditAction) async throws -> [AuditEvent] {
            try await memory.auditEvents(AuditQuery(actions: [action])).events.reversed()
        }

        var stored: UserRecord { get async throws { try #require(try await memory.user(id: user.id)) } }
    }

    @Test func aRightCodeSignsInOnceAndConfirmsTheAddress() async throws {
        let f = Fixture()
        f.issue(.confirmation)
        let session = try await f.code("123456", type: "signup")
        #expect(session.user.id == f.user.id && session.user.emailConfirmedAt == f.time.now())
        let stored = try await f.stored
        #expect(
            stored.emailConfirmedAt == f.time.now() && stored.lastSignInAt == f.time.now() && stored.userMetadata["email_verified"] == true)
        #expect(f.memory.sessions(userID: f.user.id).map { $0.amr.map(\.method) } == [["otp"]])
        #expect(f.memory.tokens(userID: f.user.id).allSatisfy { $0.consumedAt != nil })
        #expect(try await f.events(.login).map { $0.details["method"] } == ["otp"])
        let again = try await errorOf { _ = try await f.code("123456", type: "signup") }
        #expect(again?.code == .otpExpired && again?.reason == "invalid" && again?.attemptsRemaining == nil)
    }

    /// A newer code voids nothing by being sent (the store replaces on send), but only the
    /// newest outstanding code is compared: an older one's digits are a wrong guess.
    @Test func onlyTheNewestCodeCounts() async throws {
        let f = Fixture(confirmed: true)
        f.issue(.magiclink, code: "111111", link: "old", age: 30)
        f.issue(.magiclink, code: "222222", link: "new")
        let old = try await errorOf { _ = try await f.code("111111") }
        #expect(old?.reason == "invalid" && old?.attemptsRemaining == 2)
        _ = try await f.code("222222")
        // Redeeming voided the older code too.
        #expect(f.memory.tokens(userID: f.user.id).count == 1)
    }

    /// Wrong codes count: the last allowed one locks the code (with a `lockout` event), and the
    /// right code after it is refused.
    @Test func wrongCodesLockTheCodeAtTheCap() async throws {
        let f = Fixture(maxAttempts: 3)
        f.issue(.confirmation)
        var answers: [String] = []
        for wrong in ["000000", "000001", "000002"] {
            let error = try await errorOf { _ = try await f.code(wrong) }
            answers.append("\(error?.reason ?? "-"):\(error?.attemptsRemaining.map(String.init) ?? "-")")
        }
        #expect(answers == ["invalid:2", "invalid:1", "exhausted:0"])
        let right = try await errorOf { _ = try await f.code("123456") }
        #expect(right?.reason == "exhausted" && right?.attemptsRemaining == 0)
        #expect(try await f.events(.codeFailed).count == 3)
        #expect(try await f.events(.lockout).count == 1)
        #expect(f.memory.sessionCount == 0)
    }

    @Test func anExpiredCodeIsRefused() async throws {
        let f = Fixture()
        f.issue(.confirmation)
        f.time.advance(by: 600)
        #expect(try await errorOf { _ = try await f.code("123456") }?.reason == "expired")
        #expect(f.memory.sessionCount == 0)
    }

    /// An unknown address, and a known one with no code, answer exactly alike.
    @Test func anUnknownAddressAnswersLikeAKnownOneWithoutACode() async throws {
        let f = Fixture()
        let known = try await errorOf { _ = try await f.code("123456") }
        let unknown = try await errorOf { _ = try await f.code("123456", email: "nobody@example.com") }
        #expect(known == unknown && known?.reason == unknown?.reason && known?.attemptsRemaining == unknown?.attemptsRemaining)
        #expect(known?.code == .otpExpired && known?.reason == "invalid")
    }

    /// A banned user's right code is refused and recorded, and left as it was: it works once
    /// the ban ends.
    @Test func aBannedUserIsRefusedAndTheCodeKept() async throws {
        let f = Fixture { $0.bannedUntil = Date(timeIntervalSince1970: 1_800_000_060) }
        f.issue(.confirmation)
        #expect(try await errorOf { _ = try await f.code("123456") } == AuthError.userBanned)
        let refused = try #require(try await f.events(.loginFailed).first)
        #expect(refused.userID == f.user.id && refused.details["reason"] == "user_banned" && refused.details["method"] == "otp")
        #expect(f.memory.tokens(userID: f.user.id).first?.attempts == 0)
        f.time.advance(by: 61)
        _ = try await f.code("123456")
    }

    /// A ban that lands after the use case read the user (the phone path reads it first) wins:
    /// the store decides on what it holds when it redeems.
    @Test func aBanLandingInFlightWins() async throws {
        let f = Fixture(
            edit: { $0.phone = "15551234567" },
            store: { memory in
                BanningFirstStore(base: memory)
            })
        f.issue(.sms, to: "15551234567")
        let error = try await errorOf { _ = try await f.verify(#"{"type":"sms","phone":"+1 555 123 4567","token":"123456"}"#) }
        #expect(error == AuthError.userBanned)
        #expect(f.memory.sessionCount == 0)
    }

    /// Of requests racing with one right code, one signs in.
    @Test func racingRightCodesRedeemOnce() async throws {
        let f = Fixture()
        f.issue(.confirmation)
        let winners = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 { group.addTask { (try? await f.code("123456")) != nil } }
            return await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        #expect(winners == 1 && f.memory.sessionCount == 1)
    }

    @Test func aLinkSignsInAndSendsTheUserWhereItsRequestAsked() async throws {
        let f = Fixture(confirmed: true)
        f.issue(.magiclink, link: "secret-1", redirectTo: "http://localhost:3000/welcome")
        guard case .session(let session, let redirect) = try await f.verify(#"{"type":"magiclink","token_hash":"secret-1"}"#) else {
            Issue.record("expected a session")
            return
        }
        #expect(session.user.id == f.user.id && redirect == "http://localhost:3000/welcome")
        #expect(f.memory.sessions(userID: f.user.id).map { $0.amr.map(\.method) } == [["magiclink"]])
        #expect(try await errorOf { _ = try await f.verify(#"{"type":"magiclink","token_hash":"secret-1"}"#) } == AuthError.linkInvalid)
    }

    /// A PKCE link opened in a browser gives a code and a flow state, no session and no login
    /// yet; by `token_hash` (an app, not a browser) it gives the session.
    @Test func aPKCELinkInABrowserGivesACodeNotASession() async throws {
        let f = Fixture(confirmed: true)
        let challenge = PKCEChallenge(challenge: String(repeating: "c", count: 43), method: .s256)
        f.issue(.magiclink, link: "pkce-secret", challenge: challenge)
        guard
            case .authCode(let code, let redirect) = try await f.verification.openLink("pkce-secret", type: .magiclink, client: Self.client)
        else {
            Issue.record("expected an authorization code")
            return
        }
        #expect(redirect == "http://localhost:3000")
        let flow = try #require(f.memory.flowStates.first)
        #expect(
            flow.authCodeHash == OneTimeSecrets.linkHash(code) && flow.challenge == challenge && flow.authenticationMethod == "magiclink")
        #expect(flow.expiresAt == f.time.now().addingTimeInterval(300))
        #expect(f.memory.sessionCount == 0)
        #expect(try await f.events(.login).isEmpty)

        f.issue(.magiclink, code: "654321", link: "pkce-app", challenge: challenge)
        guard case .session = try await f.verify(#"{"type":"magiclink","token_hash":"pkce-app"}"#) else {
            Issue.record("expected a session")
            return
        }
    }

    /// Secure email change: the first confirmation answers half-way and keeps the other code;
    /// the second moves the user, signs in and tells the old address.
    @Test func bothHalvesOfAnEmailChangeMoveTheUser() async throws {
        let f = Fixture(confirmed: true) {
            $0.newEmail = "new@example.com"
            $0.emailChangeConfirmationsNeeded = 2
        }
        f.issue(.emailChangeCurrent, code: "111111", link: "current", to: "ada@example.com")
        f.issue(.emailChangeNew, code: "222222", link: "new", to: "new@example.com")
        guard case .pending(let message, _) = try await f.verify(#"{"type":"email_change","email":"ada@example.com","token":"111111"}"#)
        else {
            Issue.record("expected the half-way answer")
            return
        }
        #expect(message == Verification.emailChangeHalfway)
        #expect(try await f.stored.emailChangeConfirmationsNeeded == 1)
        let session = try await f.code("222222", type: "email_change", email: "new@example.com")
        let stored = try await f.stored
        #expect(session.user.email == "new@example.com" && stored.email == "new@example.com" && stored.newEmail == nil)
        #expect(f.memory.outbox.map(\.recipient) == ["ada@example.com"])
        #expect(try await f.events(.emailChanged).first?.details["from"] == "ada@example.com")
    }

    /// The email change's notice is sealed for the user as read, outside the transaction: when the
    /// user changes under every sealed notice, the request is refused as busy after eight rounds,
    /// and nothing is moved, spent or queued.
    @Test func anEmailChangeWhoseUserKeepsChangingIsRefusedWhole() async throws {
        let f = Fixture(
            confirmed: true,
            edit: {
                $0.newEmail = "new@example.com"
                $0.emailChangeConfirmationsNeeded = 1
            }, store: { ChangingUserStore(base: $0) })
        f.issue(.emailChangeNew, code: "222222", to: "new@example.com")
        let refusal = await #expect(throws: AuthError.self) {
            try await f.verify(#"{"type":"email_change","email":"new@example.com","token":"222222"}"#)
        }
        #expect(refusal?.code == .overRequestRateLimit)
        let stored = try await f.stored
        #expect(stored.email == "ada@example.com" && stored.newEmail == "new@example.com" && stored.version == 8)
        #expect(f.memory.tokens(userID: f.user.id).allSatisfy { $0.consumedAt == nil } && f.memory.outbox.isEmpty)
    }

    /// A code from an earlier change request (to another address) is refused and left alone.
    @Test func aCodeFromAnEarlierEmailChangeIsRefused() async throws {
        let f = Fixture(confirmed: true) {
            $0.newEmail = "newer@example.com"
            $0.emailChangeConfirmationsNeeded = 1
        }
        f.issue(.emailChangeNew, code: "222222", to: "older@example.com", for: nil)
        // The code was sent for `older@`, but the user now waits for `newer@`.
        let error = try await errorOf { _ = try await f.code("222222", type: "email_change", email: "newer@example.com") }
        #expect(error == AuthError.otpInvalid)
        #expect(try await f.stored.email == "ada@example.com")
        #expect(f.memory.tokens(userID: f.user.id).first?.consumedAt == nil)
    }

    @Test func anSMSCodeConfirmsTheNumberAndAPhoneChangeMovesIt() async throws {
        let f = Fixture(confirmed: true) { $0.phone = "15551234567" }
        f.issue(.sms, to: "15551234567")
        guard case .session = try await f.verify(#"{"type":"sms","phone":"+15551234567","token":"123456"}"#) else {
            Issue.record("expected a session")
            return
        }
        #expect(try await f.stored.phoneConfirmedAt == f.time.now())

        f.memory.change(f.user.id) { $0.newPhone = "15557654321" }
        f.issue(.phoneChange, code: "777777", to: "15557654321")
        guard case .session(let moved, _) = try await f.verify(#"{"type":"phone_change","phone":"15557654321","token":"777777"}"#) else {
            Issue.record("expected a session")
            return
        }
        let stored = try await f.stored
        #expect(moved.user.phone == "15557654321" && stored.phone == "15557654321" && stored.newPhone == nil)
        #expect(f.memory.sessions(userID: f.user.id).flatMap { $0.amr.map(\.method) }.sorted() == ["otp", "phone_change"])
    }

    /// Past the client's `/verify` budget every request is refused, the right code too.
    @Test func theClientsBudgetRefusesPastItsLimit() async throws {
        let f = Fixture(verifyPerIP: 2)
        f.issue(.confirmation)
        _ = try await errorOf { _ = try await f.code("000000") }
        _ = try await errorOf { _ = try await f.code("000001") }
        #expect(try await errorOf { _ = try await f.code("123456") }?.code == .overRequestRateLimit)
        #expect(f.memory.sessionCount == 0)
    }

    /// Hostile and malformed requests get GoTrue's 400s (or a refused code) before any code is
    /// compared, and the code stays good.
    @Test(arguments: [
        (#"{"email":"ada@example.com","token":"123456"}"#, "validation_failed"),
        (#"{"type":"bogus","email":"ada@example.com","token":"123456"}"#, "validation_failed"),
        (#"{"type":"email","email":"ada@example.com"}"#, "validation_failed"),
        (#"{"type":"email","email":"ada@example.com","token":""}"#, "validation_failed"),
        (#"{"type":"email","email":"not an address","token":"123456"}"#, "email_address_invalid"),
        (#"{"type":"email","email":"ada@example.com","token":"12345678901234567"}"#, "otp_expired"),
        (#"{"type":"email","phone":"15551234567","token":"123456"}"#, "validation_failed"),
        (#"{"type":"sms","phone":"0123","token":"123456"}"#, "validation_failed"),
        (#"{"type":"email","token_hash":"\#(String(repeating: "x", count: 129))"}"#, "otp_expired"),
    ])
    func malformedRequestsAreRefusedAndTheCodeStaysGood(_ json: String, _ code: String) async throws {
        let f = Fixture()
        f.issue(.confirmation)
        let error = try await errorOf { _ = try await f.verify(json) }
        #expect(error?.code.rawValue == code, "\(json)")
        #expect(f.memory.tokens(userID: f.user.id).first?.attempts == 0)
        _ = try await f.code("123456")
    }

    /// A reauthentication nonce is spent alone: the user's other outstanding codes stay.
    @Test func aNonceIsSpentAndTheOtherCodesKept() async throws {
        let f = Fixture(confirmed: true)
        f.issue(.reauthentication, code: "424242", link: "r")
        f.issue(.magiclink, code: "123456", link: "m")
        let records = TestSessionParts.records(accounts: f.memory, time: f.time, random: SeededRandomSource(seed: 3))
        let rules = CodeRedemption(
            selector: .newest(userID: f.user.id, kinds: [.reauthentication]), proof: .code("424242"), completion: .nonce, maxAttempts: 3,
            client: nil, records: records)
        guard case .redeemed(let redemption) = try await f.memory.redeem(rules) else {
            Issue.record("expected the nonce spent")
            return
        }
        #expect(redemption.session == nil && f.memory.sessionCount == 0)
        _ = try await f.code("123456")
    }
}

/// A verification store that bans the user just before the first redemption: a ban that lands
/// while a request that already read the user is in flight.
final class BanningFirstStore: VerificationStore {
    let base: InMemoryStore
    private let first = FirstTime()

    init(base: InMemoryStore) { self.base = base }

    func user(id: UUID) async throws -> UserRecord? { try await base.user(id: id) }
    func user(email: String) async throws -> UserRecord? { try await base.user(email: email) }
    func user(phone: String) async throws -> UserRecord? { try await base.user(phone: phone) }
    func users(newEmail: String) async throws -> [UserRecord] { try await base.users(newEmail: newEmail) }
    func users(newPhone: String) async throws -> [UserRecord] { try await base.users(newPhone: newPhone) }
    func account(userID: UUID, sessionID: UUID?) async throws -> AccountRecords {
        try await base.account(userID: userID, sessionID: sessionID)
    }

    func redeem(_ rules: CodeRedemption, limits: [RateLimitCounter]) async throws -> RedemptionOutcome {
        if first.now(), let id = base.anyUserID { base.change(id) { $0.bannedUntil = rules.now.addingTimeInterval(3600) } }
        return try await base.redeem(rules, limits: limits)
    }
}

/// A store where another write lands on the user before every redemption.
final class ChangingUserStore: VerificationStore {
    let base: InMemoryStore

    init(base: InMemoryStore) { self.base = base }

    func user(id: UUID) async throws -> UserRecord? { try await base.user(id: id) }
    func user(email: String) async throws -> UserRecord? { try await base.user(email: email) }
    func user(phone: String) async throws -> UserRecord? { try await base.user(phone: phone) }
    func users(newEmail: String) async throws -> [UserRecord] { try await base.users(newEmail: newEmail) }
    func users(newPhone: String) async throws -> [UserRecord] { try await base.users(newPhone: newPhone) }
    func account(userID: UUID, sessionID: UUID?) async throws -> AccountRecords {
        try await base.account(userID: userID, sessionID: sessionID)
    }

    func redeem(_ rules: CodeRedemption, limits: [RateLimitCounter]) async throws -> RedemptionOutcome {
        if let id = base.anyUserID { base.change(id) { $0.lastSignInAt = rules.now } }
        return try await base.redeem(rules, limits: limits)
    }
}
