import Crypto
import Foundation
import LatchkeyAPI
import Testing

@testable import LatchkeyCore

/// The PKCE grant against the in-memory store and a manual clock: one try per code, the
/// verifier for both methods, expiry, refusals in the audit log, and a ban that lands while an
/// exchange is in flight — without HTTP or a database.
@Suite struct AuthCodeExchangeTests {
    static let client = ClientInfo(ip: "192.0.2.9", userAgent: "test")
    static let verifier = String(repeating: "v", count: 43) + "-verifier_1.~"
    static var s256Challenge: String { Base64URL.encode(SHA256.hash(data: Array(verifier.utf8))) }

    struct Fixture {
        let memory = InMemoryStore()
        let time = ManualTimeSource()
        let exchange: AuthCodeExchange
        let user: UserRecord
        let code = "the-authorization-code"

        init(method: PKCEChallenge.Method = .s256, confirmed: Bool = false, landing: (@Sendable (InMemoryStore) -> Void)? = nil) {
            let now = time.now()
            user = UserRecord(
                id: UUID(), aud: "authenticated", role: "authenticated", email: "ada@example.com", passwordHash: nil,
                emailConfirmedAt: confirmed ? now : nil, appMetadata: [:], userMetadata: [:], createdAt: now, updatedAt: now)
            memory.add(user)
            let challenge = method == .s256 ? AuthCodeExchangeTests.s256Challenge : AuthCodeExchangeTests.verifier
            memory.add(
                FlowStateRecord(
                    id: UUID(), authCodeHash: OneTimeSecrets.linkHash(code), userID: user.id,
                    challenge: PKCEChallenge(challenge: challenge, method: method), authenticationMethod: "magiclink", createdAt: now,
                    expiresAt: now.addingTimeInterval(300)))
            let base = memory
            let store: any AuthCodeExchangeStore = landing.map { LandingFirstStore(base: base, landing: $0) } ?? base
            exchange = AuthCodeExchange(
                store: store, limiter: RateLimiter(store: memory, time: time),
                tokenPerIP: RateLimit(count: 100, period: 300),
                records: TestSessionParts.records(accounts: memory, time: time, random: SeededRandomSource(seed: 13)))
        }

        func attempt(code: String? = nil, verifier: String = AuthCodeExchangeTests.verifier) async throws -> Session {
            try await exchange.exchange(
                PKCEGrantRequest(authCode: code ?? self.code, codeVerifier: verifier), client: AuthCodeExchangeTests.client)
        }

        var refusals: [String] {
            get async throws {
                try await memory.auditEvents(AuditQuery(actions: [.loginFailed])).events.reversed()
                    .compactMap { $0.details["reason"]?.stringValue }
            }
        }
    }

    @Test(arguments: [PKCEChallenge.Method.s256, .plain])
    func theRightVerifierSignsInOnceAndConfirmsTheAddress(_ method: PKCEChallenge.Method) async throws {
        let f = Fixture(method: method)
        let session = try await f.attempt()
        #expect(session.user.id == f.user.id && session.user.emailConfirmedAt == f.time.now())
        let stored = try #require(try await f.memory.user(id: f.user.id))
        #expect(stored.emailConfirmedAt == f.time.now() && stored.userMetadata["email_verified"] == true)
        #expect(f.memory.sessions(userID: f.user.id).map { $0.amr.map(\.method) } == [["magiclink"]])
        await #expect(throws: AuthCodeExchange.notFound) { try await f.attempt() }
        #expect(try await f.refusals == ["flow_state_not_found"])
    }

    /// A wrong verifier is refused and recorded against the flow's user, and spends nothing: the
    /// right one after it signs in, once.
    @Test func aWrongVerifierLeavesTheCodeToItsOwner() async throws {
        let f = Fixture()
        await #expect(throws: AuthCodeExchange.badVerifier) { try await f.attempt(verifier: String(repeating: "w", count: 43)) }
        #expect(f.memory.sessions(userID: f.user.id).isEmpty)
        _ = try await f.attempt()
        await #expect(throws: AuthCodeExchange.notFound) { try await f.attempt() }
        #expect(f.memory.sessions(userID: f.user.id).count == 1)
        #expect(try await f.refusals == ["bad_code_verifier", "flow_state_not_found"])
        let events = try await f.memory.auditEvents(AuditQuery(actions: [.loginFailed])).events
        #expect(events.last?.userID == f.user.id && events.first?.userID == nil)
    }

    @Test func anExpiredCodeIsRefused() async throws {
        let f = Fixture()
        f.time.advance(by: 300)
        await #expect(throws: AuthCodeExchange.expired) { try await f.attempt() }
        #expect(f.memory.sessions(userID: f.user.id).isEmpty)
    }

    /// Malformed requests are refused before the store is asked: the code stays good.
    @Test(arguments: [
        PKCEGrantRequest(authCode: "", codeVerifier: String(repeating: "v", count: 43)), PKCEGrantRequest(authCode: "c", codeVerifier: nil),
        PKCEGrantRequest(authCode: String(repeating: "c", count: 129), codeVerifier: String(repeating: "v", count: 43)),
        PKCEGrantRequest(authCode: "the-authorization-code", codeVerifier: String(repeating: "v", count: 42)),
        PKCEGrantRequest(authCode: "the-authorization-code", codeVerifier: String(repeating: "v", count: 129)),
    ])
    func malformedRequestsLeaveTheCodeGood(_ request: PKCEGrantRequest) async throws {
        let f = Fixture()
        await #expect(throws: AuthError.self) { try await f.exchange.exchange(request, client: Self.client) }
        _ = try await f.attempt()
    }

    @Test func aBannedUserIsRefusedAndTheCodeSpent() async throws {
        let f = Fixture()
        f.memory.change(f.user.id) { $0.bannedUntil = f.time.now().addingTimeInterval(60) }
        await #expect(throws: AuthError.userBanned) { try await f.attempt() }
        #expect(try await f.refusals == ["user_banned"])
        f.time.advance(by: 61)
        await #expect(throws: AuthCodeExchange.notFound) { try await f.attempt() }
    }

    /// A user deleted after the link was opened: the flow state went with the user (as the
    /// schema deletes it), so the code is refused as unknown and the refusal names no one.
    @Test func aDeletedUsersCodeIsRefused() async throws {
        let f = Fixture()
        f.memory.remove(f.user.id)
        await #expect(throws: AuthCodeExchange.notFound) { try await f.attempt() }
        let refusal = try #require(try await f.memory.auditEvents(AuditQuery(actions: [.loginFailed])).events.first)
        #expect(refusal.userID == nil && refusal.details["reason"] == "flow_state_not_found")
        await #expect(throws: AuthCodeExchange.notFound) { try await f.attempt() }
        #expect(f.memory.sessionCount == 0)
    }

    /// A ban that lands between the read and the write wins; so does a deletion. A benign write
    /// (another sign-in's time) is kept and the exchange goes on.
    @Test(arguments: ["ban", "benign"])
    func aDecisionThatLandsInFlightWins(_ landing: String) async throws {
        let f = Fixture(landing: { store in
            guard let id = store.anyUserID else { return }
            store.change(id) { user in
                if landing == "ban" { user.bannedUntil = Date.distantFuture } else { user.lastSignInAt = Date(timeIntervalSince1970: 0) }
            }
        })
        if landing == "ban" {
            await #expect(throws: AuthError.userBanned) { try await f.attempt() }
            #expect(f.memory.sessions(userID: f.user.id).isEmpty)
        } else {
            _ = try await f.attempt()
            #expect(f.memory.sessions(userID: f.user.id).count == 1)
        }
    }

    /// A hosted page's session handed to the app: the exchange answers that session (no new one,
    /// no second sign-in event), and nothing once it has ended or the user is banned.
    @Test func aHandedOverSessionIsAnsweredAsItIs() async throws {
        let f = Fixture(confirmed: true)
        let records = TestSessionParts.records(accounts: f.memory, time: f.time, random: SeededRandomSource(seed: 14))
        let now = f.time.now()
        let session = records.answers.newSession(for: f.user, method: "password", client: Self.client, now: now)
        f.memory.add(session)
        let made = try await records.answers.answer(user: f.user, session: session)
        let handOff = SessionHandOff(store: f.memory, records: records, lifetime: 300)
        let challenge = PKCEChallenge(challenge: Self.s256Challenge, method: .s256)

        let code = try await handOff.code(for: made, challenge: challenge, method: "password")
        let answered = try await f.attempt(code: code)
        #expect(answered.refreshToken == made.refreshToken && f.memory.sessions(userID: f.user.id).count == 1)
        // Once: the same code again finds nothing; a wrong verifier is refused.
        await #expect(throws: AuthCodeExchange.notFound) { try await f.attempt(code: code) }
        let guessed = try await handOff.code(for: made, challenge: challenge, method: "password")
        await #expect(throws: AuthCodeExchange.badVerifier) {
            try await f.attempt(code: guessed, verifier: String(repeating: "w", count: 43))
        }

        var banned = f.user
        banned.bannedUntil = now.addingTimeInterval(3600)
        f.memory.add(banned)
        let afterBan = try await handOff.code(for: made, challenge: challenge, method: "password")
        await #expect(throws: AuthError.userBanned) { try await f.attempt(code: afterBan) }
        f.memory.add(f.user)
        let afterSignOut = try await handOff.code(for: made, challenge: challenge, method: "password")
        try await f.memory.deleteSession(id: session.id, audit: [])
        await #expect(throws: AuthCodeExchange.notFound) { try await f.attempt(code: afterSignOut) }
    }
}
