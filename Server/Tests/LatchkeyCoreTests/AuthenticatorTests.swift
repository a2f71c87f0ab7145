import Foundation
import LatchkeyAPI
import Testing

@testable import LatchkeyCore

/// Who a request is, against the in-memory token issuer and store and a manual clock: the header
/// forms, every claim a user's token must carry, signed-out sessions, bans, and admin tokens.
@Suite struct AuthenticatorTests {
    struct Fixture {
        let time = ManualTimeSource()
        let store = InMemoryStore()
        let issuer: InMemoryTokenIssuer
        let authenticator: Authenticator
        let user: UserRecord
        let session: SessionRecord
        static let jwt = JWTSettings()
        static let iss = "http://localhost:9999"

        init() {
            issuer = InMemoryTokenIssuer(time: time)
            authenticator = Authenticator(issuer: issuer, jwt: Self.jwt, issuerClaim: Self.iss, accounts: store, time: time)
            let now = time.now()
            user = UserRecord(
                id: UUID(), aud: "authenticated", role: "authenticated", email: "ada@example.com", passwordHash: nil, appMetadata: [:],
                userMetadata: [:], createdAt: now, updatedAt: now)
            session = SessionRecord(id: UUID(), userID: user.id, amr: [], refreshSalt: [1], createdAt: now, updatedAt: now)
            store.add(user)
            store.add(session)
        }

        /// The claims of a good user token for the session.
        var claims: AccessTokenClaims {
            AccessTokenClaims(
                iss: Self.iss, sub: user.id.uuidString.lowercased(), aud: Self.jwt.audience,
                exp: Int(time.now().timeIntervalSince1970) + 3600, role: "authenticated", sessionID: session.id.uuidString.lowercased())
        }

        func header(_ claims: AccessTokenClaims) async throws -> String { "Bearer " + (try await issuer.sign(claims)) }

        func refusal(_ authorization: String?) async throws -> AuthError? {
            try await errorOf { try await authenticator.authenticate(authorization: authorization) }
        }
    }

    @Test func aUsersTokenNamesTheUserAndTheSession() async throws {
        let f = Fixture()
        let principal = try await f.authenticator.authenticate(authorization: try await f.header(f.claims))
        #expect(principal.user.id == f.user.id && principal.session?.id == f.session.id && !principal.isAdmin)
        // The scheme is case-insensitive, as GoTrue reads it.
        let token = try await f.issuer.sign(f.claims)
        #expect(try await f.authenticator.authenticate(authorization: "bearer " + token).user.id == f.user.id)
    }

    @Test func headersThatCarryNoBearerTokenAre401() async throws {
        let f = Fixture()
        for header in [nil, "", "Bearer", "Bearer ", "Basic abc", "Token x", "Bearer " + String(repeating: "a", count: 16_400)] {
            #expect(try await f.refusal(header)?.code == .noAuthorization, "\(String(describing: header?.prefix(20)))")
        }
        #expect(try await f.refusal("Bearer not-a-token")?.code == .badJWT)
    }

    @Test func aUsersTokenMustCarryEveryClaim() async throws {
        let f = Fixture()
        var cases: [(String, AccessTokenClaims)] = []
        func add(_ detail: String, _ change: (inout AccessTokenClaims) -> Void) {
            var claims = f.claims
            change(&claims)
            cases.append((detail, claims))
        }
        add("unexpected audience") { $0.aud = "another-app" }
        add("missing exp claim") { $0.exp = nil }
        add("unexpected issuer") { $0.iss = "https://elsewhere.example" }
        add("missing sub claim") { $0.sub = nil }
        add("missing sub claim") { $0.sub = "not-a-uuid" }
        add("missing session_id claim") { $0.sessionID = nil }
        for (detail, claims) in cases {
            let error = try #require(try await f.refusal(try await f.header(claims)), "\(detail)")
            #expect(error.code == .badJWT && error.message.hasSuffix(detail), "\(error.message)")
        }
        // Expired by the clock.
        let header = try await f.header(f.claims)
        f.time.advance(by: 3600)
        #expect(try await f.refusal(header)?.code == .badJWT)
    }

    @Test func endedSessionsDeletedAndBannedUsersAreRefused() async throws {
        let f = Fixture()
        var other = f.claims
        other.sessionID = "not-a-uuid"
        #expect(try await f.refusal(try await f.header(other)) == .sessionNotFound)
        // A session of another user.
        let stranger = SessionRecord(
            id: UUID(), userID: UUID(), amr: [], refreshSalt: [2], createdAt: f.time.now(), updatedAt: f.time.now())
        f.store.add(stranger)
        other.sessionID = stranger.id.uuidString
        #expect(try await f.refusal(try await f.header(other)) == .sessionNotFound)
        // Signed out.
        let header = try await f.header(f.claims)
        f.store.removeSession(id: f.session.id)
        #expect(try await f.refusal(header) == .sessionNotFound)
        f.store.add(f.session)
        var banned = f.user
        banned.bannedUntil = f.time.now().addingTimeInterval(60)
        f.store.add(banned)
        #expect(try await f.refusal(header) == .userBanned)
        f.time.advance(by: 61)
        #expect(try await f.authenticator.authenticate(authorization: header).user.id == f.user.id)
    }

    @Test func adminTokens() async throws {
        let f = Fixture()
        let admin = try await f.header(AccessTokenClaims(iss: "supabase", role: "service_role"))
        #expect(try await f.authenticator.authenticateAdmin(authorization: admin) == "service_role")
        #expect(try await errorOf { try await f.authenticator.authenticateAdmin(authorization: try await f.header(f.claims)) } == .notAdmin)
        // An admin token needs no audience, expiry or session, but names a user to act as one.
        #expect(try await f.refusal(admin)?.code == .badJWT)
        let forUser = try await f.header(AccessTokenClaims(sub: f.user.id.uuidString, role: "service_role"))
        let principal = try await f.authenticator.authenticate(authorization: forUser)
        #expect(principal.isAdmin && principal.user.id == f.user.id && principal.session == nil)
    }

    /// A token that names a user's session is that user's token whatever its `role` says: a hook
    /// (or a bug) that put `service_role` in it does not make an operator. A service key names
    /// no session.
    @Test func aTokenOfAUserSessionIsNeverAnOperators() async throws {
        let f = Fixture()
        var minted = f.claims
        minted.role = "service_role"
        let principal = try await f.authenticator.authenticate(authorization: try await f.header(minted))
        #expect(!principal.isAdmin && principal.user.id == f.user.id)
        await #expect(throws: AuthError.notAdmin) { try await f.authenticator.authenticateAdmin(authorization: try await f.header(minted)) }
        var key = AccessTokenClaims(iss: "supabase", sub: nil, aud: nil, exp: nil, role: "service_role", sessionID: nil)
        #expect(try await f.authenticator.authenticateAdmin(authorization: try await f.header(key)) == "service_role")
        key.sessionID = f.session.id.uuidString.lowercased()
        await #expect(throws: AuthError.notAdmin) { try await f.authenticator.authenticateAdmin(authorization: try await f.header(key)) }
    }
}
