import Crypto
import Foundation
import LatchkeyAPI
import Logging
import Synchronization
import Testing

@testable import LatchkeyCore

/// The device-key grant against the in-memory store and assertion reader, with a manual clock:
/// every rule of the assertion, replays and races, and decisions that land while a sign-in is
/// in flight (a ban, a revocation) — without HTTP, a database or JWTs.
@Suite struct DeviceKeySignInTests {
    static let endpoint = "http://localhost:9999/token"
    static let client = ClientInfo(ip: "192.0.2.1", userAgent: "test")

    struct Fixture {
        let store: any DeviceKeySignInStore
        let memory: InMemoryStore
        let reader = InMemoryAssertionReader()
        let time = ManualTimeSource()
        let signIn: DeviceKeySignIn
        let user: UserRecord
        let key: DeviceKeyRecord
        let privateKey = P256.Signing.PrivateKey()

        /// `wrap` puts a stand-in between the use case and the store (to land a write mid-flight).
        init(
            tokenPerIP: RateLimit = RateLimit(count: 1000, period: 300), wrap: (InMemoryStore) -> any DeviceKeySignInStore = { $0 }
        )
            async throws
        {
            memory = InMemoryStore()
            store = wrap(memory)
            let now = time.now()
            user = UserRecord(
                id: UUID(), aud: "authenticated", role: "authenticated", email: "ada@example.com", passwordHash: nil, appMetadata: [:],
                userMetadata: [:], createdAt: now, updatedAt: now)
            memory.add(user)
            let point = Array(privateKey.publicKey.x963Representation)
            let jwk: [String: JSONValue] = [
                "kty": "EC", "crv": "P-256", "x": .string(Base64URL.encode(point[1..<33])), "y": .string(Base64URL.encode(point[33..<65])),
            ]
            key = DeviceKeyRecord(id: UUID(), userID: user.id, name: "phone", publicKey: jwk, createdAt: now)
            #expect(try await memory.createDeviceKey(key, limit: 10, audit: []))
            signIn = DeviceKeySignIn(
                store: store, assertions: reader, limiter: RateLimiter(store: memory, time: time),
                settings: DeviceKeySignIn.Settings(tokenEndpoint: DeviceKeySignInTests.endpoint, tokenPerIP: tokenPerIP),
                answers: try await TestSessionParts.answers(accounts: memory, time: time, random: SeededRandomSource(seed: 3)),
                time: time)
        }

        /// Claims that pass every rule now.
        func claims(jti: String = UUID().uuidString) -> DeviceKeyAssertion {
            let now = time.now()
            return DeviceKeyAssertion(
                iss: key.id.uuidString.lowercased(), sub: user.id.uuidString.lowercased(), aud: [DeviceKeySignInTests.endpoint],
                exp: now.addingTimeInterval(120), iat: now, jti: jti)
        }

        func assertion(_ claims: DeviceKeyAssertion? = nil, signedBy signer: P256.Signing.PublicKey? = nil) -> String {
            reader.issue(claims ?? self.claims(), signedBy: signer ?? privateKey.publicKey)
        }

        func signIn(_ assertion: String?) async throws -> Session {
            try await signIn.signIn(JWTBearerGrantRequest(assertion: assertion), client: DeviceKeySignInTests.client)
        }

        func actions() async throws -> [AuditAction] {
            try await memory.auditEvents(AuditQuery(limit: 100)).events.map(\.action)
        }
    }

    @Test func aGoodAssertionSignsInAndMovesTheKeyToTheNewSession() async throws {
        let f = try await Fixture()
        let session = try await f.signIn(f.assertion())
        #expect(session.user.id == f.user.id)
        let claims = try #require(await f.signIn.answers.issuer.verify(session.accessToken))
        #expect(claims.amr?.map(\.method) == ["device_key"])
        let sessionID = try #require(claims.sessionID.flatMap(UUID.init(uuidString:)))
        #expect(f.memory.session(id: sessionID)?.userID == f.user.id)
        #expect(try await f.memory.deviceKey(id: f.key.id)?.sessionID == sessionID)
        #expect(try await f.memory.deviceKey(id: f.key.id)?.lastUsedAt == f.time.now())
        let user = try #require(try await f.memory.user(id: f.user.id))
        #expect(user.lastSignInAt == f.time.now() && user.version == f.user.version + 1)
        #expect(try await f.actions() == [.login])
    }

    @Test func everyRuleOfTheAssertionRefusesWithInvalidGrantAndIsRecorded() async throws {
        let f = try await Fixture()
        let now = f.time.now()
        let other = P256.Signing.PrivateKey()
        var cases: [(String, String)] = []
        func add(_ detail: String, _ change: (inout DeviceKeyAssertion) -> Void) {
            var claims = f.claims()
            change(&claims)
            cases.append((detail, f.assertion(claims)))
        }
        add("sub is not the key's user") { $0.sub = UUID().uuidString }
        add("aud must be") { $0.aud = ["http://elsewhere.example/token"] }
        add("aud must be") { $0.aud = [] }
        add("the assertion has expired") { $0.exp = now }
        add("exp is more than 5 minutes ahead") { $0.exp = now.addingTimeInterval(331) }
        add("iat is not within the last 5 minutes") { $0.iat = now.addingTimeInterval(31) }
        add("iat is not within the last 5 minutes") { $0.iat = now.addingTimeInterval(-331) }
        add("jti required") { $0.jti = "" }
        add("jti required") { $0.jti = String(repeating: "j", count: 256) }
        cases.append(("the assertion's signature does not verify", f.assertion(signedBy: other.publicKey)))
        cases.append(("the assertion is not a JWT", "not.an.assertion"))
        cases.append(("assertion is too large", String(repeating: "a", count: 8193)))
        for (detail, assertion) in cases {
            let error = try #require(try await errorOf { try await f.signIn(assertion) }, "\(detail)")
            #expect(error.oauthError == "invalid_grant" && error.code == .invalidCredentials, "\(detail)")
            #expect(error.message.hasPrefix(detail), "\(error.message)")
        }
        // Each refusal is a failed sign-in; those that reached the key name its user.
        let events = try await f.memory.auditEvents(AuditQuery(limit: 100)).events
        #expect(events.count == cases.count && events.allSatisfy { $0.action == .loginFailed })
        #expect(events.filter { $0.userID == f.user.id }.count == 10)
        // Nothing was signed in: the key has no session and was never used.
        #expect(try await f.memory.deviceKey(id: f.key.id)?.lastUsedAt == nil)
        // The edges that pass: exp at 5 minutes and 30 seconds, iat 30 seconds ahead, no iat.
        var edge = f.claims()
        edge.exp = now.addingTimeInterval(330)
        edge.iat = now.addingTimeInterval(30)
        _ = try await f.signIn(f.assertion(edge))
        edge = f.claims()
        edge.iat = nil
        _ = try await f.signIn(f.assertion(edge))
    }

    @Test func anUnknownKeyIsRecordedUnderTheKeyIDItNamed() async throws {
        let f = try await Fixture()
        var claims = f.claims()
        let unknown = UUID()
        claims.iss = unknown.uuidString
        let error = try #require(try await errorOf { try await f.signIn(f.assertion(claims)) })
        #expect(error.code == .deviceKeyNotFound && error.oauthError == "invalid_grant")
        let event = try #require(try await f.memory.auditEvents(AuditQuery(limit: 10)).events.first)
        #expect(event.action == .loginFailed && event.userID == nil)
        #expect(event.actorName == "device_key:\(unknown.uuidString.lowercased())")
    }

    @Test func anAssertionIsGoodOnceEvenWhenSentManyTimesAtOnce() async throws {
        let f = try await Fixture()
        let assertion = f.assertion()
        let outcomes = await withTaskGroup(of: AuthError?.self) { group in
            for _ in 0..<6 { group.addTask { try? await errorOf { try await f.signIn(assertion) } } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == nil }.count == 1)
        #expect(outcomes.compactMap { $0 }.map(\.message) == Array(repeating: "the assertion was already used", count: 5))
        #expect(try await f.actions().filter { $0 == .login }.count == 1)
        // A later one with a new jti is fine.
        _ = try await f.signIn(f.assertion())
    }

    /// A store that lands another request's write (`before`, given the user being signed in) just
    /// before the first redemption, after the sign-in read and decided.
    final class InFlight: DeviceKeySignInStore {
        let base: InMemoryStore
        let before: @Sendable (InMemoryStore, UserRecord) async throws -> Void
        let pending = Mutex(true)

        init(base: InMemoryStore, before: @escaping @Sendable (InMemoryStore, UserRecord) async throws -> Void) {
            self.base = base
            self.before = before
        }

        func deviceKey(id: UUID) async throws -> DeviceKeyRecord? { try await base.deviceKey(id: id) }
        func user(id: UUID) async throws -> UserRecord? { try await base.user(id: id) }
        func appendAudit(_ events: [AuditEvent]) async throws { try await base.appendAudit(events) }
        func redeemAssertion(
            keyID: UUID, jti: String, expiresAt: Date, session: SessionRecord, user: UserRecord, audit: [AuditEvent]
        ) async throws -> AssertionRedemption {
            if pending.withLock({ pending in
                defer { pending = false }; return pending
            }) {
                try await before(base, user)
            }
            return try await base.redeemAssertion(keyID: keyID, jti: jti, expiresAt: expiresAt, session: session, user: user, audit: audit)
        }
    }

    @Test func aBanThatLandsWhileTheSignInIsInFlightWins() async throws {
        let f = try await Fixture { memory in
            InFlight(base: memory) { memory, user in
                // An operator bans the user between the sign-in's read and its write.
                var banned = try #require(try await memory.user(id: user.id))
                banned.bannedUntil = Date.distantFuture
                banned.version += 1
                memory.add(banned)
            }
        }
        let error = try #require(try await errorOf { try await f.signIn(f.assertion()) })
        #expect(error.message == "user not allowed" && error.oauthError == "invalid_grant")
        // The ban stands, and nothing of the sign-in was written.
        let user = try #require(try await f.memory.user(id: f.user.id))
        #expect(user.bannedUntil == .distantFuture && user.lastSignInAt == nil)
        #expect(try await f.memory.deviceKey(id: f.key.id)?.lastUsedAt == nil)
        #expect(try await f.actions() == [.loginFailed])
    }

    @Test func aRevocationThatLandsWhileTheSignInIsInFlightWins() async throws {
        let f = try await Fixture { memory in
            InFlight(base: memory) { memory, user in
                for key in try await memory.deviceKeys(userID: user.id) {
                    _ = try await memory.deleteDeviceKey(id: key.id, userID: user.id, audit: [])
                }
            }
        }
        let error = try #require(try await errorOf { try await f.signIn(f.assertion()) })
        #expect(error.code == .deviceKeyNotFound)
        #expect(try await f.memory.user(id: f.user.id)?.lastSignInAt == nil)
        #expect(try await f.actions() == [.loginFailed])
    }

    @Test func aBannedUserIsRefused() async throws {
        let f = try await Fixture()
        var banned = f.user
        banned.bannedUntil = f.time.now().addingTimeInterval(3600)
        f.memory.add(banned)
        let error = try #require(try await errorOf { try await f.signIn(f.assertion()) })
        #expect(error.message == "user not allowed" && error.oauthError == "invalid_grant")
        #expect(try await f.memory.deviceKey(id: f.key.id)?.lastUsedAt == nil)
    }

    @Test func refusalsBeforeTheAssertionIsRead() async throws {
        let f = try await Fixture(tokenPerIP: RateLimit(count: 2, period: 300))
        #expect(try await errorOf { try await f.signIn(nil) }?.oauthError == "invalid_request")
        #expect(try await errorOf { try await f.signIn("") }?.oauthError == "invalid_request")
        // The third request from this address in the window is over the limit, good or not.
        #expect(try await errorOf { try await f.signIn(f.assertion()) }?.code == .overRequestRateLimit)
    }

    /// Every `/token` grant counts against one budget per address: refreshes spend what device-key
    /// sign-ins then lack.
    @Test func theTokenBudgetIsOneForEveryGrant() async throws {
        let budget = RateLimit(count: 2, period: 300)
        let f = try await Fixture(tokenPerIP: budget)
        let refresher = SessionRefresh(
            store: f.memory, limiter: RateLimiter(store: f.memory, time: f.time),
            settings: SessionRefresh.Settings(sessions: SessionSettings(), tokenPerIP: budget), answers: f.signIn.answers, time: f.time,
            logger: Logger(label: "test"))
        let refused = try await errorOf {
            try await refresher.refresh(RefreshTokenGrantRequest(refreshToken: "forged"), client: DeviceKeySignInTests.client)
        }
        #expect(refused == .refreshTokenNotFound)
        _ = try await f.signIn(f.assertion())
        #expect(try await errorOf { try await f.signIn(f.assertion()) }?.code == .overRequestRateLimit)
    }
}
