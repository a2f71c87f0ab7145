import Foundation
import LatchkeyAPI
import Logging
import Synchronization
import Testing

@testable import LatchkeyCore

/// Sending codes and links against the in-memory store, a manual clock and seeded randomness:
/// new and known addresses, intents, bans, the cooldown (also against a send in flight), the
/// email and client budgets, SMS (sent, refused, test numbers), resends, recovery and
/// reauthentication — without HTTP or a database. Codes are read from the queued messages and
/// verified with ``Verification`` over the same store.
@Suite struct OneTimeCodesTests {
    static let client = ClientInfo(ip: "192.0.2.6", userAgent: "test")
    static let decoder = JSONDecoder()

    /// Records the SMS it is asked to send; refuses them all when `refusing`.
    final class RecordingSMS: SMSSender {
        let sent = Mutex<[(phone: String, body: String)]>([])
        let refusing: Bool
        init(refusing: Bool = false) { self.refusing = refusing }
        var providerName: String { "recording" }
        func send(to phone: String, body: String, channel: String) async throws -> String {
            if refusing { throw AuthError.smsSendFailed }
            sent.withLock { $0.append((phone, body)) }
            return "sms-\(sent.withLock { $0.count })"
        }
    }

    struct Fixture {
        let memory = InMemoryStore()
        let time = ManualTimeSource()
        let sms: RecordingSMS
        let codes: OneTimeCodes
        let verification: Verification

        init(
            configure: (inout AuthConfiguration) -> Void = { _ in }, sms: RecordingSMS = RecordingSMS(),
            store: ((InMemoryStore) -> any CodeStore)? = nil
        ) {
            var configuration = AuthConfiguration(siteURL: "http://localhost:3000")
            configuration.rateLimits = .unlimited
            configure(&configuration)
            self.sms = sms
            let parts = TestCodeParts(
                memory: memory, codeStore: store?(memory), time: time, sms: sms, configuration: configuration, seed: 34)
            let (records, limiter, redirects, sending) = (parts.records, parts.limiter, parts.redirects, parts.codes)
            codes = OneTimeCodes(
                store: store?(memory) ?? memory, codes: sending, limiter: limiter, settings: OneTimeCodes.Settings(configuration))
            verification = Verification(
                store: memory, limiter: limiter, settings: Verification.Settings(configuration), records: records, redirects: redirects)
        }

        func otp(_ json: String) async throws -> OTPResponse {
            try await codes.sendOTP(
                OneTimeCodesTests.decoder.decode(OTPRequest.self, from: Data(json.utf8)), redirectTo: nil, client: OneTimeCodesTests.client)
        }

        /// The codes sent to `address` so far, oldest first, read from the queued messages.
        func sentCodes(to address: String) -> [String] {
            memory.outbox.filter { $0.recipient == address }.compactMap { $0.message?.text.split(separator: "=").last.map(String.init) }
        }

        /// Whether `code` signs `email` in.
        func signsIn(_ email: String, _ code: String, type: String = "email") async -> Bool {
            let json = #"{"type":"\#(type)","email":"\#(email)","token":"\#(code)"}"#
            guard let request = try? OneTimeCodesTests.decoder.decode(VerifyRequest.self, from: Data(json.utf8)) else { return false }
            if case .session = try? await verification.verify(request, client: OneTimeCodesTests.client) { return true }
            return false
        }

        func user(_ email: String) async throws -> UserRecord? { try await memory.user(email: email) }
    }

    /// A new address gets a user, a confirmation code and its message in one step; the code signs
    /// in and confirms the address.
    @Test func aNewAddressGetsAUserAndACodeThatSignsIn() async throws {
        let f = Fixture()
        let answer = try await f.otp(#"{"email":"Ada@Example.com","data":{"team":"core"}}"#)
        #expect(answer.sentTo == EmailAddress.masked("ada@example.com") && answer.codeLength == 6)
        let user = try #require(try await f.user("ada@example.com"))
        #expect(user.emailConfirmedAt == nil && user.confirmationSentAt == f.time.now() && user.userMetadata["team"] == "core")
        let code = try #require(f.sentCodes(to: "ada@example.com").first)
        #expect(code.count == 6 && code.allSatisfy(\.isNumber))
        #expect(await f.signsIn("ada@example.com", code))
        #expect(try await f.user("ada@example.com")?.emailConfirmedAt == f.time.now())
        let sent = try await f.memory.auditEvents(AuditQuery(actions: [.userSignedUp, .codeSent])).events.map(\.action)
        #expect(Set(sent) == [.userSignedUp, .codeSent])
    }

    /// A confirmed user gets a magic-link code; a second request within the cooldown is refused,
    /// and after it only the newest code signs in.
    @Test func aKnownAddressGetsANewCodeAfterTheCooldownAndOnlyTheNewestCounts() async throws {
        let f = Fixture()
        _ = try await f.otp(#"{"email":"ada@example.com"}"#)
        #expect(await f.signsIn("ada@example.com", try #require(f.sentCodes(to: "ada@example.com").last)))
        f.time.advance(by: 61)
        _ = try await f.otp(#"{"email":"ada@example.com"}"#)
        let refused = try await errorOf { _ = try await f.otp(#"{"email":"ada@example.com"}"#) }
        #expect(refused?.code == .overEmailSendRateLimit && refused?.message.contains("after 60 seconds") == true)
        f.time.advance(by: 61)
        _ = try await f.otp(#"{"email":"ada@example.com"}"#)
        let sent = f.sentCodes(to: "ada@example.com")
        #expect(sent.count == 3)
        #expect(f.memory.tokens(userID: try #require(try await f.user("ada@example.com")).id).filter { $0.consumedAt == nil }.count == 1)
        #expect(await !f.signsIn("ada@example.com", sent[1]) || sent[1] == sent[2])
        #expect(await f.signsIn("ada@example.com", sent[2]))
    }

    /// A send that lands between the use case's read and its write counts against the cooldown:
    /// the write is decided again on a fresh copy and refused.
    @Test func aSendInFlightCountsAgainstTheCooldown() async throws {
        let f = Fixture(store: { memory in SendingFirstStore(base: memory) })
        let now = f.time.now()
        f.memory.add(
            UserRecord(
                id: UUID(), aud: "authenticated", role: "authenticated", email: "ada@example.com", passwordHash: nil,
                emailConfirmedAt: now, appMetadata: [:], userMetadata: [:], createdAt: now, updatedAt: now))
        let refused = try await errorOf { _ = try await f.otp(#"{"email":"ada@example.com"}"#) }
        #expect(refused?.code == .overEmailSendRateLimit)
        #expect(f.memory.outbox.isEmpty)
    }

    @Test func intentsSayWhetherTheAccountExists() async throws {
        let f = Fixture()
        let unknown = try await errorOf { _ = try await f.otp(#"{"email":"nobody@example.com","intent":"signin"}"#) }
        #expect(unknown?.code == .userNotFound)
        #expect(try await f.user("nobody@example.com") == nil)
        _ = try await f.otp(#"{"email":"ada@example.com"}"#)
        #expect(await f.signsIn("ada@example.com", try #require(f.sentCodes(to: "ada@example.com").last)))
        let existing = try await errorOf { _ = try await f.otp(#"{"email":"ada@example.com","intent":"signup"}"#) }
        #expect(existing == AuthError.userAlreadyExists)
        let bogus = try await errorOf { _ = try await f.otp(#"{"email":"ada@example.com","intent":"maybe"}"#) }
        #expect(bogus?.code == .validationFailed)
    }

    /// Without `create_user`, or with sign-ups off, an unknown address is refused and nothing is
    /// stored; a known one still gets its code.
    @Test func unknownAddressesAreRefusedWhenSignUpsAreOff() async throws {
        let off = Fixture { $0.disableSignup = true }
        #expect(try await errorOf { _ = try await off.otp(#"{"email":"new@example.com"}"#) } == AuthError.signupDisabled)
        let noCreate = Fixture()
        let refused = try await errorOf { _ = try await noCreate.otp(#"{"email":"new@example.com","create_user":false}"#) }
        #expect(refused == AuthError.otpSignupDisabled)
        #expect(try await off.user("new@example.com") == nil)
        #expect(try await noCreate.user("new@example.com") == nil)
    }

    /// A banned user's request answers like anyone's and sends nothing.
    @Test func aBannedUserGetsTheSameAnswerAndNoCode() async throws {
        let f = Fixture()
        _ = try await f.otp(#"{"email":"ada@example.com"}"#)
        let user = try #require(try await f.user("ada@example.com"))
        f.memory.change(user.id) { $0.bannedUntil = f.time.now().addingTimeInterval(3600) }
        f.time.advance(by: 61)
        let answer = try await f.otp(#"{"email":"ada@example.com"}"#)
        #expect(answer.sentTo == EmailAddress.masked("ada@example.com"))
        #expect(f.sentCodes(to: "ada@example.com").count == 1)
    }

    /// The per-address email budget refuses past its limit and stores nothing for the refused
    /// request; the client's budget refuses every kind of send.
    @Test func theBudgetsRefusePastTheirLimits() async throws {
        let f = Fixture { $0.rateLimits.emailPerAddress = RateLimit(count: 1, period: 3600) }
        _ = try await f.otp(#"{"email":"ada@example.com"}"#)
        f.time.advance(by: 61)
        let refused = try await errorOf { _ = try await f.otp(#"{"email":"ada@example.com"}"#) }
        #expect(refused?.code == .overEmailSendRateLimit)
        #expect(f.sentCodes(to: "ada@example.com").count == 1)

        let client = Fixture { $0.rateLimits.otpPerIP = RateLimit(count: 2, period: 300) }
        _ = try await client.otp(#"{"email":"a@example.com"}"#)
        _ = try await client.otp(#"{"email":"b@example.com"}"#)
        #expect(try await errorOf { _ = try await client.otp(#"{"email":"c@example.com"}"#) }?.code == .overRequestRateLimit)
        #expect(try await client.user("c@example.com") == nil)
    }

    /// Malformed requests are refused before anything is stored.
    @Test(arguments: [
        (#"{"email":"ada@example.com","phone":"15551234567"}"#, ErrorCode.validationFailed),
        (#"{"email":"ada@example.com","channel":"sms"}"#, .validationFailed),
        (#"{"email":"not an address"}"#, .emailAddressInvalid),
        (#"{}"#, .validationFailed),
        (#"{"phone":"0123"}"#, .validationFailed),
        (#"{"phone":"15551234567","channel":"pigeon"}"#, .validationFailed),
        (#"{"email":"ada@example.com","code_challenge":"short","code_challenge_method":"s256"}"#, .validationFailed),
    ])
    func malformedRequestsStoreNothing(_ json: String, _ code: ErrorCode) async throws {
        let f = Fixture()
        #expect(try await errorOf { _ = try await f.otp(json) }?.code == code, "\(json)")
        #expect(f.memory.outbox.isEmpty && f.sms.sent.withLock { $0.isEmpty })
    }

    /// An SMS code signs a new number in; a refused SMS leaves no usable code; a test number gets
    /// its fixed code and no SMS.
    @Test func smsCodesAreSentRefusedOrFixed() async throws {
        let f = Fixture { $0.sms.testOTPs = ["15550000000": "424242"] }
        let answer = try await f.otp(#"{"phone":"+1 555 123 4567"}"#)
        #expect(answer.channel == "sms" && answer.messageID == "sms-1")
        let sent = try #require(f.sms.sent.withLock { $0.first })
        let code = String(try #require(sent.body.firstMatch(of: /\d{6}/)).0)
        #expect(sent.phone == "15551234567")
        let json = #"{"type":"sms","phone":"15551234567","token":"\#(code)"}"#
        guard
            case .session = try await f.verification.verify(
                Self.decoder.decode(VerifyRequest.self, from: Data(json.utf8)), client: Self.client)
        else {
            Issue.record("the SMS code did not sign in")
            return
        }
        _ = try await f.otp(#"{"phone":"15550000000"}"#)
        #expect(f.sms.sent.withLock { $0.count } == 1)

        let refusing = Fixture(sms: RecordingSMS(refusing: true))
        #expect(try await errorOf { _ = try await refusing.otp(#"{"phone":"15551234567"}"#) } == AuthError.smsSendFailed)
        let user = try #require(try await refusing.memory.user(phone: "15551234567"))
        #expect(refusing.memory.tokens(userID: user.id).isEmpty)
    }

    @Test func resendSendsOnlyToUnconfirmedAddressesAndAnswersAlike() async throws {
        let f = Fixture()
        _ = try await f.otp(#"{"email":"ada@example.com"}"#)
        f.time.advance(by: 61)
        let resend = { (json: String) in
            try await f.codes.resend(Self.decoder.decode(ResendRequest.self, from: Data(json.utf8)), redirectTo: nil, client: Self.client)
        }
        let first = try await resend(#"{"type":"signup","email":"ada@example.com"}"#)
        let unknown = try await resend(#"{"type":"signup","email":"nobody@example.com"}"#)
        #expect(first.codeLength == unknown.codeLength && f.sentCodes(to: "ada@example.com").count == 2)
        #expect(await f.signsIn("ada@example.com", try #require(f.sentCodes(to: "ada@example.com").last), type: "signup"))
        f.time.advance(by: 61)
        _ = try await resend(#"{"type":"signup","email":"ada@example.com"}"#)
        #expect(f.sentCodes(to: "ada@example.com").count == 2)
        #expect(try await errorOf { _ = try await resend(#"{"type":"recovery","email":"ada@example.com"}"#) }?.code == .validationFailed)
    }

    /// Recovery answers known and unknown addresses alike; the known one's code arrives.
    @Test func recoveryAnswersAlikeAndSendsToKnownAddresses() async throws {
        let f = Fixture()
        _ = try await f.otp(#"{"email":"ada@example.com"}"#)
        f.time.advance(by: 61)
        let known = try await f.codes.recover(email: "ada@example.com", challenge: (nil, nil), redirectTo: nil, client: Self.client)
        let unknown = try await f.codes.recover(email: "nobody@example.com", challenge: (nil, nil), redirectTo: nil, client: Self.client)
        await known.sending.value
        await unknown.sending.value
        #expect(known.answer.codeLength == unknown.answer.codeLength && known.answer.expiresIn == unknown.answer.expiresIn)
        #expect(f.sentCodes(to: "ada@example.com").count == 2 && f.sentCodes(to: "nobody@example.com").isEmpty)
        let user = try #require(try await f.user("ada@example.com"))
        #expect(f.memory.tokens(userID: user.id).contains { $0.kind == .recovery })
    }

    @Test func reauthenticationSendsANonceToTheSignedInUser() async throws {
        let f = Fixture()
        _ = try await f.otp(#"{"email":"ada@example.com"}"#)
        let user = try #require(try await f.user("ada@example.com"))
        let principal = Principal(claims: AccessTokenClaims(sub: user.id.uuidString), user: user, session: nil, isAdmin: false)
        _ = try await f.codes.reauthenticate(principal: principal, client: Self.client)
        #expect(f.sentCodes(to: "ada@example.com").count == 2)
        #expect(f.memory.tokens(userID: user.id).contains { $0.kind == .reauthentication })
        let again = try #require(try await f.user("ada@example.com"))
        let refused = try await errorOf {
            _ = try await f.codes.reauthenticate(
                principal: Principal(claims: principal.claims, user: again, session: nil, isAdmin: false), client: Self.client)
        }
        #expect(refused?.code == .overEmailSendRateLimit)
    }

    @Test func seededRandomnessGivesUniformDigits() {
        let random = SeededRandomSource(seed: 1)
        let digits = random.digits(10_000)
        #expect(digits.count == 10_000 && digits.allSatisfy(\.isNumber))
        let counts = Dictionary(grouping: digits, by: { $0 }).mapValues(\.count)
        #expect(counts.count == 10 && counts.values.allSatisfy { (800...1200).contains($0) })
        #expect(random.linkSecret().count == 43)
    }
}

/// A code store that records a code sent by another request just before the first replacement:
/// a send in flight.
final class SendingFirstStore: CodeStore {
    let base: InMemoryStore
    private let first = FirstTime()

    init(base: InMemoryStore) { self.base = base }

    func user(id: UUID) async throws -> UserRecord? { try await base.user(id: id) }
    func user(email: String) async throws -> UserRecord? { try await base.user(email: email) }
    func user(phone: String) async throws -> UserRecord? { try await base.user(phone: phone) }
    func users(newEmail: String) async throws -> [UserRecord] { try await base.users(newEmail: newEmail) }
    func users(newPhone: String) async throws -> [UserRecord] { try await base.users(newPhone: newPhone) }
    func createUser(
        _ user: UserRecord, identity: IdentityRecord, token: OneTimeTokenRecord?, outbox: [OutboxRecord], audit: [AuditEvent],
        limits: [RateLimitCounter]
    ) async throws {
        try await base.createUser(user, identity: identity, token: token, outbox: outbox, audit: audit, limits: limits)
    }
    func discardOneTimeToken(id: UUID) async throws { try await base.discardOneTimeToken(id: id) }

    func replaceOneTimeTokens(_ tokens: [OneTimeTokenRecord], user: UserRecord, outbox: [OutboxRecord], audit: [AuditEvent]) async throws {
        if first.now() { base.change(user.id) { $0.recoverySentAt = tokens.first?.createdAt } }
        try await base.replaceOneTimeTokens(tokens, user: user, outbox: outbox, audit: audit)
    }
}
