import Foundation
import LatchkeyAPI
import Testing

@testable import LatchkeyCore

/// The TOTP use case against the in-memory stores, a manual clock and seeded randomness: every
/// rule of `/factors` (steps used once, attempt caps and locks, challenges, aal rules, racing
/// codes) without HTTP or a database.
@Suite struct MFAUseCaseTests {
    struct Fixture {
        let store = InMemoryStore()
        let time = ManualTimeSource()
        let mfa: MFA
        let user: UserRecord
        let session: SessionRecord
        let other: SessionRecord
        static let client = ClientInfo(ip: "192.0.2.1")

        init(settings: MFASettings = MFASettings(), accountFailures: RateLimit = RateLimit(count: 1000, period: 3600)) async throws {
            let now = time.now()
            user = UserRecord(
                id: UUID(), aud: "authenticated", role: "authenticated", email: "ada@example.com", passwordHash: nil, appMetadata: [:],
                userMetadata: [:], createdAt: now, updatedAt: now)
            session = SessionRecord(id: UUID(), userID: user.id, amr: [], refreshSalt: [1], createdAt: now, updatedAt: now)
            other = SessionRecord(id: UUID(), userID: user.id, amr: [], refreshSalt: [2], createdAt: now, updatedAt: now)
            store.add(user)
            store.add(session)
            store.add(other)
            store.add(DeviceKeyRecord(id: UUID(), userID: user.id, name: "this", publicKey: [:], createdAt: now, sessionID: session.id))
            store.add(DeviceKeyRecord(id: UUID(), userID: user.id, name: "other", publicKey: [:], createdAt: now, sessionID: other.id))
            let random = SeededRandomSource(seed: 7)
            mfa = MFA(
                store: store, serverSecret: TestSessionParts.serverSecret,
                limiter: RateLimiter(store: store, time: time),
                settings: MFA.Settings(
                    factors: settings, perIP: RateLimit(count: 1000, period: 60), accountFailures: accountFailures,
                    defaultIssuer: "example.com"),
                records: TestSessionParts.records(accounts: store, time: time, random: random), sms: OneTimeCodesTests.RecordingSMS())
        }

        /// The caller as its session is stored now.
        var principal: Principal {
            Principal(
                claims: AccessTokenClaims(sub: user.id.uuidString), user: user, session: store.session(id: session.id) ?? session,
                isAdmin: false)
        }

        func enroll() async throws -> (id: UUID, totp: TOTP) {
            let enrolled = try await mfa.enroll(EnrollFactorRequest(friendlyName: "phone"), principal: principal)
            return (enrolled.id, TOTP(secret: try #require(Base32.decode(enrolled.totp.secret))))
        }

        func verify(_ id: UUID, _ code: String, client: ClientInfo = Fixture.client) async throws -> Session {
            let challenge = try await mfa.challenge(id: id.uuidString, principal: principal, client: client)
            return try await mfa.verify(
                id: id.uuidString, VerifyFactorRequest(challengeID: challenge.id.uuidString, code: code), principal: principal,
                client: client)
        }

        func refusal(_ id: UUID, _ code: String) async -> AuthError? {
            do {
                _ = try await verify(id, code)
                return nil
            } catch {
                return error as? AuthError
            }
        }

        func code(_ totp: TOTP, offset: TimeInterval = 0) -> String {
            totp.code(step: totp.step(at: time.now().addingTimeInterval(offset)))
        }
    }

    @Test func theRightCodeVerifiesTheFactorAndRaisesTheSession() async throws {
        let f = try await Fixture()
        let (id, totp) = try await f.enroll()
        // Seeded: the same id on every run (drawn after the 20 bytes of the secret).
        let seeded = SeededRandomSource(seed: 7)
        _ = seeded.bytes(20)
        #expect(id == seeded.uuid())
        let answer = try await f.verify(id, f.code(totp))
        #expect(answer.user.factors?.first?.status == FactorStatus(rawValue: "verified"))
        let raised = try #require(f.store.session(id: f.session.id))
        #expect(raised.aal == "aal2" && raised.refreshCounter == 2 && raised.amr.map(\.method) == ["totp"])
        // The first verification ends the other aal1 session and its device's key, and tells the owner.
        #expect(f.store.session(id: f.other.id) == nil)
        #expect(try await f.store.deviceKeys(userID: f.user.id).map(\.name) == ["this"])
        #expect(f.store.outbox.count == 1)
        let actions = try await f.store.auditEvents(AuditQuery(limit: 10)).events.map(\.action)
        #expect(actions.contains(.factorVerified) && actions.contains(.mfaVerified))
    }

    @Test func aCodeIsGoodOnceAndOnlyNearItsTime() async throws {
        let f = try await Fixture()
        let (id, totp) = try await f.enroll()
        let code = f.code(totp)
        _ = try await f.verify(id, code)
        #expect(await f.refusal(id, code)?.code == .mfaVerificationFailed)
        f.time.advance(by: 30)
        _ = try await f.verify(id, f.code(totp))
        #expect(await f.refusal(id, f.code(totp, offset: 120))?.code == .mfaVerificationFailed)
    }

    @Test func wrongCodesCountAndTheLastOneLocksTheFactorForAWhile() async throws {
        let f = try await Fixture()
        let (id, totp) = try await f.enroll()
        for remaining in stride(from: 4, through: 1, by: -1) {
            let error = await f.refusal(id, "000000")
            #expect(error?.code == .mfaVerificationFailed && error?.attemptsRemaining == remaining)
        }
        let locked = await f.refusal(id, "000000")
        #expect(locked?.code == .overRequestRateLimit && locked?.retryAfter == 900)
        // Locked: no challenge, and the right code does not help.
        await #expect(throws: AuthError.self) { try await f.verify(id, f.code(totp)) }
        f.time.advance(by: 901)
        _ = try await f.verify(id, f.code(totp))
        #expect(try await f.store.factors(userID: f.user.id).first?.failedAttempts == 0)
    }

    @Test func challengesExpireAreSpentAndAreBoundToTheirAddress() async throws {
        let f = try await Fixture()
        let (id, totp) = try await f.enroll()
        let challenge = try await f.mfa.challenge(id: id.uuidString, principal: f.principal, client: Fixture.client)
        let request = VerifyFactorRequest(challengeID: challenge.id.uuidString, code: f.code(totp))
        await #expect(throws: AuthError(.mfaIPAddressMismatch, "Challenge and verify IP addresses mismatch")) {
            try await f.mfa.verify(id: id.uuidString, request, principal: f.principal, client: ClientInfo(ip: "192.0.2.99"))
        }
        f.time.advance(by: 301)
        let late = VerifyFactorRequest(challengeID: challenge.id.uuidString, code: f.code(totp))
        let expired = try await errorOf { try await f.mfa.verify(id: id.uuidString, late, principal: f.principal, client: Fixture.client) }
        #expect(expired?.code == .mfaChallengeExpired && expired?.message.contains("has expired") == true)
        // The expired challenge was spent: it is not found any more.
        let gone = try await errorOf { try await f.mfa.verify(id: id.uuidString, late, principal: f.principal, client: Fixture.client) }
        #expect(gone?.message == "MFA challenge not found or already used")
    }

    /// Racing wrong codes are each counted: a verification that loses the race reads again.
    @Test func racingWrongCodesAreEachCounted() async throws {
        let f = try await Fixture()
        let (id, _) = try await f.enroll()
        let codes = await withTaskGroup(of: ErrorCode?.self) { group in
            for _ in 0..<8 { group.addTask { await f.refusal(id, "000000")?.code } }
            return await group.reduce(into: [ErrorCode?]()) { $0.append($1) }
        }
        #expect(codes.filter { $0 == .mfaVerificationFailed }.count == 4)
        #expect(codes.filter { $0 == .overRequestRateLimit }.count == 4)
        #expect(try await f.store.factors(userID: f.user.id).first?.lockedUntil != nil)
    }

    /// The same right code sent twice at once for one challenge is accepted once.
    @Test func ofRacingRightCodesOneIsAccepted() async throws {
        let f = try await Fixture()
        let (id, totp) = try await f.enroll()
        let challenge = try await f.mfa.challenge(id: id.uuidString, principal: f.principal, client: Fixture.client)
        let request = VerifyFactorRequest(challengeID: challenge.id.uuidString, code: f.code(totp))
        let principal = f.principal
        let accepted = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<6 {
                group.addTask { (try? await f.mfa.verify(id: id.uuidString, request, principal: principal, client: Fixture.client)) != nil }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(accepted == 1)
        #expect(f.store.session(id: f.session.id)?.refreshCounter == 2)
    }

    @Test func aVerifiedFactorGuardsTheNextOneAndItsRemoval() async throws {
        let f = try await Fixture()
        let (id, totp) = try await f.enroll()
        let aal1 = f.principal
        _ = try await f.verify(id, f.code(totp))
        // A session still at aal1 (say, one signed in elsewhere before) adds and removes nothing.
        var stale = aal1
        stale.session?.aal = "aal1"
        await #expect(throws: AuthError(.insufficientAAL, "AAL2 required to enroll a new factor")) {
            try await f.mfa.enroll(EnrollFactorRequest(friendlyName: "second"), principal: stale)
        }
        await #expect(throws: AuthError(.insufficientAAL, "AAL2 required to unenroll verified factor")) {
            try await f.mfa.unenroll(id: id.uuidString, principal: stale)
        }
        // At aal2: removing it brings the session back to aal1, without the totp method.
        _ = try await f.mfa.unenroll(id: id.uuidString, principal: f.principal)
        let session = try #require(f.store.session(id: f.session.id))
        #expect(session.aal == "aal1" && session.amr.isEmpty)
        #expect(try await f.store.factors(userID: f.user.id).isEmpty)
    }

    @Test func wrongCodesFeedTheAccountLockOut() async throws {
        let f = try await Fixture(accountFailures: RateLimit(count: 3, period: 3600))
        let (id, totp) = try await f.enroll()
        for _ in 0..<3 { #expect(await f.refusal(id, "000000")?.code == .mfaVerificationFailed) }
        // The account is locked: even the right code is refused before it is looked at.
        #expect(await f.refusal(id, f.code(totp))?.code == .overRequestRateLimit)
        let actions = try await f.store.auditEvents(AuditQuery(limit: 20)).events.map(\.action)
        #expect(actions.filter { $0 == .lockout }.count == 1)
    }

    @Test func settingsNamesCapsAndWhoMayUseFactors() async throws {
        let f = try await Fixture(settings: MFASettings(maxEnrolledFactors: 2))
        _ = try await f.enroll()
        await #expect(throws: AuthError.self) { try await f.enroll() }  // the name is taken
        _ = try await f.mfa.enroll(EnrollFactorRequest(), principal: f.principal)
        let full = try await errorOf { try await f.mfa.enroll(EnrollFactorRequest(), principal: f.principal) }
        #expect(full?.code == .tooManyEnrolledMFAFactors)
        var anonymous = f.principal
        anonymous.user.isAnonymous = true
        #expect(try await errorOf { try await f.mfa.enroll(EnrollFactorRequest(), principal: anonymous) }?.status == 403)
        let off = try await Fixture(settings: MFASettings(totpEnrollEnabled: false, totpVerifyEnabled: false))
        #expect(try await errorOf { try await off.enroll() }?.code == .mfaTOTPEnrollNotEnabled)
        let unknown = try await errorOf {
            try await off.mfa.challenge(id: UUID().uuidString, principal: off.principal, client: Fixture.client)
        }
        // The factor is found first, then its type's switch asked (GoTrue's order): none is not found.
        #expect(unknown?.code == .mfaFactorNotFound)
        // Operators see and remove a user's factors by id.
        #expect(try await f.mfa.factors(ofUser: f.user.id.uuidString).count == 2)
        #expect(try await errorOf { try await f.mfa.factors(ofUser: UUID().uuidString) }?.code == AuthError.adminUserNotFound.code)
        let first = try #require(try await f.store.factors(userID: f.user.id).first)
        _ = try await f.mfa.delete(factorID: first.id.uuidString, ofUser: f.user.id.uuidString)
        #expect(
            try await errorOf { try await f.mfa.delete(factorID: first.id.uuidString, ofUser: f.user.id.uuidString) }?.code
                == .mfaFactorNotFound)
    }
}

/// The ``AuthError`` `body` throws, or `nil` when it returns.
func errorOf<T>(_ body: () async throws -> T) async throws -> AuthError? {
    do {
        _ = try await body()
        return nil
    } catch let error as AuthError {
        return error
    }
}
