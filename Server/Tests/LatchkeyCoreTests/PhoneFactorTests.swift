import Foundation
import LatchkeyAPI
import Synchronization
import Testing

@testable import LatchkeyCore

/// Phone factors (#39) against the in-memory store, a manual clock and seeded randomness: GoTrue's
/// shapes and switches, the code sent for the newest challenge only, the cooldown, the attempt cap
/// shared with TOTP, one verified factor per number, and a refused SMS leaving nothing usable.
@Suite struct PhoneFactorTests {
    /// Records each message (with its code and purpose); refuses them all when `refusing`.
    final class RecordingSMS: SMSSender {
        let sent = Mutex<[SMSMessage]>([])
        let refusing: Bool
        init(refusing: Bool = false) { self.refusing = refusing }
        var providerName: String { "recording" }
        func send(to phone: String, body: String, channel: String) async throws -> String { "unused" }
        func send(_ message: SMSMessage) async throws -> String {
            if refusing { throw AuthError.smsSendFailed }
            sent.withLock { $0.append(message) }
            return "sms-\(sent.withLock { $0.count })"
        }
        var last: SMSMessage? { sent.withLock { $0.last } }
    }

    struct Fixture {
        let store = InMemoryStore()
        let time = ManualTimeSource()
        let sms: RecordingSMS
        let mfa: MFA
        let user: UserRecord
        let session: SessionRecord
        static let client = ClientInfo(ip: "192.0.2.1")

        init(
            phone: PhoneFactorSettings = PhoneFactorSettings(enrollEnabled: true, verifyEnabled: true), refusing: Bool = false,
            maxVerified: Int = 10
        ) {
            let now = time.now()
            sms = RecordingSMS(refusing: refusing)
            user = UserRecord(
                id: UUID(), aud: "authenticated", role: "authenticated", email: "ada@example.com", passwordHash: nil, appMetadata: [:],
                userMetadata: [:], createdAt: now, updatedAt: now)
            session = SessionRecord(id: UUID(), userID: user.id, amr: [], refreshSalt: [1], createdAt: now, updatedAt: now)
            store.add(user)
            store.add(session)
            var factors = MFASettings()
            factors.phone = phone
            factors.maxVerifiedFactors = maxVerified
            let random = SeededRandomSource(seed: 9)
            mfa = MFA(
                store: store, serverSecret: TestSessionParts.serverSecret, limiter: RateLimiter(store: store, time: time),
                settings: MFA.Settings(
                    factors: factors, perIP: RateLimit(count: 1000, period: 60), accountFailures: RateLimit(count: 1000, period: 3600),
                    defaultIssuer: "example.com", smsPerNumber: RateLimit(count: 50, period: 3600)),
                records: TestSessionParts.records(accounts: store, time: time, random: random), sms: sms)
        }

        var principal: Principal {
            Principal(
                claims: AccessTokenClaims(sub: user.id.uuidString), user: store.state.withLock { $0.users[user.id] } ?? user,
                session: store.session(id: session.id) ?? session, isAdmin: false)
        }

        func enroll(_ phone: String = "+44 7700 900123") async throws -> PhoneEnrollment {
            try await mfa.enrollPhone(EnrollFactorRequest(factorType: "phone", phone: phone), principal: principal)
        }

        func challenge(_ id: UUID, channel: String? = nil) async throws -> (FactorChallenge, code: String) {
            let challenge = try await mfa.challenge(
                id: id.uuidString, ChallengeFactorRequest(channel: channel), principal: principal, client: Self.client)
            return (challenge, try #require(sms.last).code)
        }

        func verify(_ id: UUID, _ challenge: FactorChallenge, _ code: String) async throws -> Session {
            try await mfa.verify(
                id: id.uuidString, VerifyFactorRequest(challengeID: challenge.id.uuidString, code: code), principal: principal,
                client: Self.client)
        }

        func error(_ work: () async throws -> some Any) async -> AuthError? { await thrownAuthError(work) }
    }

    @Test func theCodeSentVerifiesTheFactorAndRaisesTheSessionWithGoTruesMethod() async throws {
        let f = Fixture()
        let enrolled = try await f.enroll()
        #expect(enrolled.type == "phone" && enrolled.phone == "+44 7700 900123")
        let (challenge, code) = try await f.challenge(enrolled.id, channel: "whatsapp")
        let message = try #require(f.sms.last)
        #expect(challenge.type == "phone" && message.phone == "447700900123" && message.channel == "whatsapp")
        #expect(message.purpose == "mfa" && code.count == 6 && code.allSatisfy(\.isNumber))
        let answer = try await f.verify(enrolled.id, challenge, code)
        let factor = try #require(answer.user.factors?.first)
        #expect(factor.status == FactorStatus(rawValue: "verified") && factor.phone == "+••••••••0123")
        let raised = try #require(f.store.session(id: f.session.id))
        #expect(raised.aal == "aal2" && raised.amr.map(\.method) == ["mfa/phone"])
        // The challenge is spent with its code.
        #expect(await f.error { try await f.verify(enrolled.id, challenge, code) }?.code == .mfaChallengeExpired)
    }

    @Test func switchesAndBadNumbersAreGoTruesErrors() async throws {
        let off = Fixture(phone: PhoneFactorSettings())
        #expect(await off.error { try await off.enroll() }?.code == .mfaPhoneEnrollNotEnabled)
        let f = Fixture()
        for (phone, message) in [
            ("", "Phone number required to enroll Phone factor"), ("0123", "Invalid phone number format (E.164 required)"),
            ("+1 (555) call-me", "Invalid phone number format (E.164 required)"),
        ] {
            let error = await f.error { try await f.enroll(phone) }
            #expect(error?.code == .validationFailed && error?.message == message, "\(phone)")
        }
        #expect(
            await f.error { try await f.mfa.challenge(id: UUID().uuidString, principal: f.principal, client: Fixture.client) }?.code
                == .mfaFactorNotFound)
        let enrolled = try await f.enroll()
        #expect(await f.error { try await f.challenge(enrolled.id, channel: "pigeon") }?.code == .validationFailed)
        let verifyOff = Fixture(phone: PhoneFactorSettings(enrollEnabled: true))
        let other = try await verifyOff.enroll()
        #expect(await verifyOff.error { try await verifyOff.challenge(other.id) }?.code == .mfaPhoneVerifyNotEnabled)
        #expect(verifyOff.sms.sent.withLock(\.count) == 0)
    }

    @Test func onlyTheNewestCodeCountsAndChallengesWaitTheirTurn() async throws {
        let f = Fixture()
        let enrolled = try await f.enroll()
        let (first, firstCode) = try await f.challenge(enrolled.id)
        #expect(await f.error { try await f.challenge(enrolled.id) }?.code == .overSMSSendRateLimit)
        f.time.advance(by: 61)
        let (second, secondCode) = try await f.challenge(enrolled.id)
        // The first challenge went with its code; the second's code does not answer the first.
        #expect(await f.error { try await f.verify(enrolled.id, first, firstCode) }?.code == .mfaChallengeExpired)
        if firstCode != secondCode {
            #expect(await f.error { try await f.verify(enrolled.id, second, firstCode) }?.code == .mfaVerificationFailed)
        }
        _ = try await f.verify(enrolled.id, second, secondCode)
    }

    @Test func wrongCodesCountAndLockTheFactorAsForTOTP() async throws {
        let f = Fixture()
        let enrolled = try await f.enroll()
        for remaining in stride(from: 4, through: 1, by: -1) {
            f.time.advance(by: 61)
            let (challenge, code) = try await f.challenge(enrolled.id)
            let wrong = code == "000000" ? "000001" : "000000"
            let error = await f.error { try await f.verify(enrolled.id, challenge, wrong) }
            #expect(error?.code == .mfaVerificationFailed && error?.message == "Invalid MFA Phone code entered")
            #expect(error?.attemptsRemaining == remaining)
        }
        f.time.advance(by: 61)
        let (challenge, code) = try await f.challenge(enrolled.id)
        let locked = await f.error { try await f.verify(enrolled.id, challenge, code == "000000" ? "000001" : "000000") }
        #expect(locked?.code == .overRequestRateLimit)
        // Locked: no challenge is sent, and the right code does not help.
        let sent = f.sms.sent.withLock(\.count)
        #expect(await f.error { try await f.challenge(enrolled.id) }?.code == .overRequestRateLimit)
        #expect(f.sms.sent.withLock(\.count) == sent)
    }

    @Test func oneVerifiedFactorPerNumberAndAnUnverifiedOneIsReplaced() async throws {
        let f = Fixture()
        let first = try await f.enroll()
        let again = try await f.enroll("+447700900123")
        #expect(try await f.store.factors(userID: f.user.id).map(\.id) == [again.id])
        let (challenge, code) = try await f.challenge(again.id)
        _ = try await f.verify(again.id, challenge, code)
        #expect(first.id != again.id)
        #expect(await f.error { try await f.enroll() }?.code == .mfaVerifiedFactorExists)
    }

    @Test func twoUnverifiedFactorsForOneNumberVerifyOnceBetweenThem() async throws {
        let f = Fixture()
        let one = try await f.enroll()
        // A second enrolment with another session's race: write the twin past the replacement rule.
        let twin = FactorRecord(
            id: UUID(), userID: f.user.id, friendlyName: "twin", factorType: "phone", sealedSecret: "", createdAt: f.time.now(),
            updatedAt: f.time.now(), phone: "447700900123")
        f.store.add(twin)
        let (first, firstCode) = try await f.challenge(one.id)
        let (second, secondCode) = try await f.challenge(twin.id)
        _ = try await f.verify(one.id, first, firstCode)
        #expect(await f.error { try await f.verify(twin.id, second, secondCode) }?.code == .mfaVerifiedFactorExists)
        #expect(try await f.store.factors(userID: f.user.id).filter { $0.status == .verified }.count == 1)
    }

    @Test func aRefusedMessageLeavesNoUsableChallenge() async throws {
        let f = Fixture(refusing: true)
        let enrolled = try await f.enroll()
        #expect(
            await f.error { try await f.mfa.challenge(id: enrolled.id.uuidString, principal: f.principal, client: Fixture.client) }?.code
                == .smsSendFailed)
        #expect(f.store.state.withLock { $0.challenges.isEmpty })
    }

    /// Challenges racing past the cooldown: one stores and sends, the others send nothing.
    @Test func racingChallengesSendOneCode() async throws {
        let f = Fixture()
        let enrolled = try await f.enroll()
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    (try? await f.mfa.challenge(id: enrolled.id.uuidString, principal: f.principal, client: Fixture.client)) != nil
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 }.count == 1)
        #expect(f.sms.sent.withLock(\.count) == 1)
        #expect(f.store.state.withLock { $0.challenges.count } == 1)
    }

    /// GoTrue's `GOTRUE_MFA_MAX_VERIFIED_FACTORS`: with that many verified factors, no other enrols.
    @Test func theVerifiedFactorCapHoldsForEveryType() async throws {
        var phone = PhoneFactorSettings(enrollEnabled: true, verifyEnabled: true)
        phone.sendFrequency = 1
        let f = Fixture(phone: phone, maxVerified: 1)
        let enrolled = try await f.enroll()
        let (challenge, code) = try await f.challenge(enrolled.id)
        _ = try await f.verify(enrolled.id, challenge, code)
        #expect(await f.error { try await f.enroll("+447700900999") }?.code == .tooManyEnrolledMFAFactors)
        #expect(await f.error { try await f.mfa.enroll(EnrollFactorRequest(), principal: f.principal) }?.code == .tooManyEnrolledMFAFactors)
    }
}
