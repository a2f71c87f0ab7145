import Crypto
import Foundation
import LatchkeyAPI
import LatchkeyWebAuthn
import Synchronization
import Testing

@testable import LatchkeyCore

/// WebAuthn factors (#39) against the in-memory store and a virtual authenticator: GoTrue's
/// shapes (`create` then `request`), the key registered by the first verification, a security
/// key without user verification accepted unless it is required, the newest challenge only, a
/// counter that must move, answers that are not credentials (400, not counted) and answers that
/// fail (counted toward the lock), a key that is one factor's, and the switches.
@Suite struct WebAuthnFactorTests {
    typealias Authenticator = PasskeysTests.Authenticator

    struct Fixture {
        let store = InMemoryStore()
        let time = ManualTimeSource()
        let mfa: MFA
        let user: UserRecord
        let session: SessionRecord
        static let client = ClientInfo(ip: "192.0.2.1")

        init(
            webAuthn: WebAuthnFactorSettings = .init(enrollEnabled: true, verifyEnabled: true), maxAttempts: Int = 5, maxEnrolled: Int = 10
        ) {
            let now = time.now()
            user = UserRecord(
                id: UUID(), aud: "authenticated", role: "authenticated", email: "ada@example.com", passwordHash: nil, appMetadata: [:],
                userMetadata: [:], createdAt: now, updatedAt: now)
            session = SessionRecord(id: UUID(), userID: user.id, amr: [], refreshSalt: [1], createdAt: now, updatedAt: now)
            store.add(user)
            store.add(session)
            var factors = MFASettings(maxEnrolledFactors: maxEnrolled, maxAttempts: maxAttempts)
            factors.webAuthn = webAuthn
            mfa = MFA(
                store: store, serverSecret: TestSessionParts.serverSecret, limiter: RateLimiter(store: store, time: time),
                settings: MFA.Settings(
                    factors: factors, perIP: RateLimit(count: 1000, period: 60), accountFailures: RateLimit(count: 1000, period: 3600),
                    defaultIssuer: "example.com", relyingParty: RelyingParty(id: "example.com", origins: ["https://example.com"]),
                    relyingPartyName: "Example"),
                records: TestSessionParts.records(accounts: store, time: time, random: SeededRandomSource(seed: 4)),
                sms: PhoneFactorTests.RecordingSMS())
        }

        var principal: Principal {
            Principal(
                claims: AccessTokenClaims(sub: user.id.uuidString), user: store.state.withLock { $0.users[user.id] } ?? user,
                session: store.session(id: session.id) ?? session, isAdmin: false)
        }

        func enroll(_ name: String? = nil) async throws -> WebAuthnEnrollment {
            try await mfa.enrollWebAuthn(EnrollFactorRequest(factorType: "webauthn", friendlyName: name), principal: principal)
        }

        func challenge(_ id: UUID) async throws -> FactorChallenge {
            try await mfa.challenge(id: id.uuidString, principal: principal, client: Self.client)
        }

        func verify(_ id: UUID, _ challenge: FactorChallenge, _ type: String, _ credential: PasskeyCredential?) async throws -> Session {
            try await mfa.verify(
                id: id.uuidString,
                VerifyFactorRequest(
                    challengeID: challenge.id.uuidString, code: nil,
                    webauthn: WebAuthnFactorResponse(type: type, credentialResponse: credential)),
                principal: principal, client: Self.client)
        }

        func error(_ work: () async throws -> some Any) async -> AuthError? { await thrownAuthError(work) }
    }

    /// The challenge's options as the passkey authenticator takes them.
    static func options(_ challenge: FactorChallenge) throws -> PasskeyOptionsResponse {
        let publicKey = try #require(challenge.webauthn?.credentialOptions.objectValue?["publicKey"])
        return PasskeyOptionsResponse(challengeID: challenge.id, options: publicKey, expiresAt: challenge.expiresAt)
    }

    static func create(_ key: Authenticator, _ challenge: FactorChallenge) throws -> PasskeyCredential? {
        key.create(try options(challenge)).credential
    }

    static func get(_ key: Authenticator, _ challenge: FactorChallenge, count: UInt32) throws -> PasskeyCredential? {
        try key.get(try options(challenge), count: count, handle: "").credential
    }

    /// A factor enrolled and verified with `key`; the session is then `aal2`.
    static func registered(_ f: Fixture, _ key: Authenticator) async throws -> UUID {
        let factor = try await f.enroll()
        let challenge = try await f.challenge(factor.id)
        _ = try await f.verify(factor.id, challenge, "create", try create(key, challenge))
        return factor.id
    }

    @Test func theFirstVerificationRegistersTheKeyAndLaterOnesAssertWithIt() async throws {
        let f = Fixture()
        let factor = try await f.enroll("YubiKey")
        #expect(factor.type == "webauthn" && factor.friendlyName == "YubiKey")
        let creating = try await f.challenge(factor.id)
        #expect(creating.type == "webauthn" && creating.webauthn?.type == "create")
        let options = try #require(creating.webauthn?.credentialOptions.objectValue?["publicKey"]?.objectValue)
        #expect(options["rp"]?.objectValue?["id"] == "example.com" && options["rp"]?.objectValue?["name"] == "Example")
        #expect(options["authenticatorSelection"]?.objectValue?["residentKey"] == "discouraged")
        #expect(options["authenticatorSelection"]?.objectValue?["userVerification"] == "preferred")
        #expect(options["excludeCredentials"] == nil && options["attestation"] == "none")
        // A security key without a PIN: present, not verified.
        var key = Authenticator()
        key.flags = 0x01
        let answer = try await f.verify(factor.id, creating, "create", try Self.create(key, creating))
        #expect(answer.user.factors?.first?.status == .verified && answer.user.factors?.first?.factorType == .webauthn)
        let raised = try #require(f.store.session(id: f.session.id))
        #expect(raised.aal == "aal2" && raised.amr.map(\.method) == ["mfa/webauthn"])
        let stored = try #require(f.store.state.withLock { $0.factors[factor.id] })
        #expect(stored.webAuthn?.credentialID == key.credentialID && stored.webAuthn?.transports == ["internal"])

        let requesting = try await f.challenge(factor.id)
        #expect(requesting.webauthn?.type == "request")
        let request = try #require(requesting.webauthn?.credentialOptions.objectValue?["publicKey"]?.objectValue)
        #expect(request["rpId"] == "example.com")
        #expect(
            request["allowCredentials"] == [
                ["type": "public-key", "id": .string(Base64URL.encode(key.credentialID)), "transports": ["internal"]]
            ])
        _ = try await f.verify(factor.id, requesting, "request", try Self.get(key, requesting, count: 7))
        #expect(f.store.state.withLock { $0.factors[factor.id]?.lastUsedStep } == 7)
        // The challenge was spent with the assertion.
        let again = await f.error { try await f.verify(factor.id, requesting, "request", try Self.get(key, requesting, count: 8)) }
        #expect(again?.code == .mfaChallengeExpired)
    }

    @Test func failedAssertionsAreWrongAnswersAndCountTowardTheLock() async throws {
        let f = Fixture(maxAttempts: 4)
        let key = Authenticator()
        let id = try await Self.registered(f, key)
        let first = try await f.challenge(id)
        _ = try await f.verify(id, first, "request", try Self.get(key, first, count: 5))
        let stranger = Authenticator()
        let bad: [(String, (FactorChallenge) throws -> PasskeyCredential?)] = [
            ("the counter did not move", { try Self.get(key, $0, count: 5) }),
            ("another key", { try Self.get(stranger, $0, count: 9) }),
            (
                "another challenge",
                { challenge in
                    var other = try Self.options(challenge)
                    other.options = ["challenge": .string(Base64URL.encode(Array(repeating: 7, count: 32)))]
                    return try key.get(other, count: 9, handle: "").credential
                }
            ),
        ]
        for (name, make) in bad {
            let challenge = try await f.challenge(id)
            let error = await f.error { try await f.verify(id, challenge, "request", try make(challenge)) }
            #expect(error?.code == .mfaVerificationFailed && error?.message == "WebAuthn verification failed", "\(name)")
        }
        // The fourth wrong answer in a row locks the factor.
        let last = try await f.challenge(id)
        let locked = await f.error { try await f.verify(id, last, "request", try Self.get(stranger, last, count: 10)) }
        #expect(locked?.code == .overRequestRateLimit)
        #expect(await f.error { try await f.challenge(id) }?.code == .overRequestRateLimit)
    }

    @Test func answersThatAreNotCredentialsAre400AndNotCounted() async throws {
        let f = Fixture(maxAttempts: 1)
        let factor = try await f.enroll()
        let challenge = try await f.challenge(factor.id)
        let key = Authenticator()
        let cases: [(VerifyFactorRequest, String)] = [
            (VerifyFactorRequest(challengeID: challenge.id.uuidString, code: "123456"), "webauthn is required to verify a WebAuthn factor"),
            (
                VerifyFactorRequest(
                    challengeID: challenge.id.uuidString, code: nil,
                    webauthn: .init(type: "request", credentialResponse: try Self.create(key, challenge))),
                "webauthn.type must be create for this factor"
            ),
            (
                VerifyFactorRequest(challengeID: challenge.id.uuidString, code: nil, webauthn: .init(type: "get", credentialResponse: nil)),
                "WebAuthn type must be create or request"
            ),
            (
                VerifyFactorRequest(
                    challengeID: challenge.id.uuidString, code: nil, webauthn: .init(type: "create", credentialResponse: nil)),
                "webauthn.credential_response is required"
            ),
            (
                VerifyFactorRequest(
                    challengeID: challenge.id.uuidString, code: nil,
                    webauthn: .init(type: "create", credentialResponse: PasskeyCredential(id: "x", rawId: "x", response: nil))),
                "Invalid credential response"
            ),
        ]
        for (request, message) in cases {
            let error = await f.error {
                try await f.mfa.verify(id: factor.id.uuidString, request, principal: f.principal, client: Fixture.client)
            }
            // Each a 400: GoTrue's validation_failed, or a credential that is not one.
            let code = message == "Invalid credential response" ? ErrorCode.webauthnVerificationFailed : .validationFailed
            #expect(error?.code == code && error?.message == message, "\(message)")
        }
        // Nothing counted (a cap of 1 would have locked it): the right answer still verifies.
        _ = try await f.verify(factor.id, challenge, "create", try Self.create(key, challenge))
    }

    @Test func onlyTheNewestChallengeCountsAndTheKeyIsOneFactors() async throws {
        let f = Fixture()
        let factor = try await f.enroll("one")
        let older = try await f.challenge(factor.id)
        let newer = try await f.challenge(factor.id)
        let key = Authenticator()
        #expect(await f.error { try await f.verify(factor.id, older, "create", try Self.create(key, older)) }?.code == .mfaChallengeExpired)
        _ = try await f.verify(factor.id, newer, "create", try Self.create(key, newer))
        // A second factor is enrolled at aal2; its creation options exclude the first key, and the
        // same key is refused.
        let second = try await f.enroll("two")
        let creating = try await f.challenge(second.id)
        let excluded = creating.webauthn?.credentialOptions.objectValue?["publicKey"]?.objectValue?["excludeCredentials"]
        #expect(excluded?.arrayValue?.first?.objectValue?["id"] == .string(Base64URL.encode(key.credentialID)))
        let error = await f.error { try await f.verify(second.id, creating, "create", try Self.create(key, creating)) }
        #expect(error?.code == .webauthnCredentialExists)
        #expect(f.store.state.withLock { $0.factors[second.id]?.status } == .unverified)
    }

    @Test func userVerificationIsRequiredOnlyWhenConfigured() async throws {
        let f = Fixture(webAuthn: .init(enrollEnabled: true, verifyEnabled: true, requireUserVerification: true))
        let factor = try await f.enroll()
        let challenge = try await f.challenge(factor.id)
        let selection = challenge.webauthn?.credentialOptions.objectValue?["publicKey"]?.objectValue?["authenticatorSelection"]
        #expect(selection?.objectValue?["userVerification"] == "required")
        var touchOnly = Authenticator()
        touchOnly.flags = 0x01
        let error = await f.error { try await f.verify(factor.id, challenge, "create", try Self.create(touchOnly, challenge)) }
        #expect(error?.code == .mfaVerificationFailed)
        let fresh = try await f.challenge(factor.id)
        _ = try await f.verify(factor.id, fresh, "create", try Self.create(Authenticator(), fresh))
    }

    @Test func theSwitchesAreGoTruesErrors() async throws {
        let off = Fixture(webAuthn: .init())
        #expect(await off.error { try await off.enroll() }?.code == .mfaWebAuthnEnrollNotEnabled)
        let noVerify = Fixture(webAuthn: .init(enrollEnabled: true, verifyEnabled: false))
        let factor = try await noVerify.enroll()
        #expect(await noVerify.error { try await noVerify.challenge(factor.id) }?.code == .mfaWebAuthnVerifyNotEnabled)
    }

    @Test func aStoredKeyReadsBackAsWritten() throws {
        let key = WebAuthnFactorCredential(
            credentialID: [1, 2, 3], publicKey: Array(repeating: 9, count: 77), aaguid: Array(repeating: 0, count: 16),
            transports: ["usb", "nfc"], attestationFormat: "packed")
        #expect(WebAuthnFactorCredential(stored: key.stored) == key)
        #expect(WebAuthnFactorCredential(stored: "{}") == nil && WebAuthnFactorCredential(stored: "not json") == nil)
    }

    @Test func aFactorNeverChallengedExpiresAtTheNextEnrolment() async throws {
        let f = Fixture(maxEnrolled: 1)
        let first = try await f.enroll("first")
        #expect(await f.error { try await f.enroll("second") }?.code == .tooManyEnrolledMFAFactors)
        f.time.advance(by: 301)
        let second = try await f.enroll("second")
        #expect(f.store.state.withLock { Array($0.factors.keys) } == [second.id] && first.id != second.id)
        // A challenged one stays, however old.
        _ = try await f.challenge(second.id)
        f.time.advance(by: 3600)
        #expect(await f.error { try await f.enroll("third") }?.code == .tooManyEnrolledMFAFactors)
    }
}
