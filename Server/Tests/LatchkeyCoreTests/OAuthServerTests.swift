import Foundation
import LatchkeyAPI
import Logging
import Synchronization
import Testing

@testable import LatchkeyCore

/// The OAuth server's flow (#40) on the in-memory store: the request, the consent, the code's one
/// exchange, the client's session and what it may do, the grant's revocation. Every decision is
/// also raced against the write it depends on.
@Suite struct OAuthServerTests {
    static let redirect = "https://rp.example.com/callback"
    static let consentPage = "https://app.example.com/oauth/consent"

    struct Fixture {
        let store = InMemoryStore()
        let time = ManualTimeSource()
        let server: OAuthServer
        let answers: SessionAnswers
        let user: UserRecord
        let principal: Principal
        let client: OAuthClient

        init(settings: OAuthServer.Settings = .init(consentPage: OAuthServerTests.consentPage), method: String = "client_secret_basic")
            async throws
        {
            let random = SeededRandomSource(seed: 40)
            answers = SessionAnswers(
                issuer: InMemoryTokenIssuer(time: time, storedKeys: true), serverSecret: TestSessionParts.serverSecret,
                jwt: JWTSettings(), externalURL: "http://localhost:9999", accounts: store, time: time, random: random)
            let limiter = RateLimiter(store: store, time: time)
            let clients = OAuthClients(
                store: store, limiter: limiter, settings: .init(enabled: true, dynamicRegistration: true), time: time, random: random)
            let refresh = SessionRefresh(
                store: store, limiter: limiter, settings: .init(sessions: SessionSettings(), tokenPerIP: .init(count: 1000, period: 300)),
                answers: answers, time: time, logger: Logger(label: "test"))
            server = OAuthServer(
                clients: clients, store: store, refresh: refresh, answers: answers, limiter: limiter,
                redirects: RedirectPolicy(siteURL: "https://app.example.com", allowList: []), settings: settings)
            client = try await clients.register(
                OAuthClientRequest(redirectURIs: [OAuthServerTests.redirect], tokenEndpointAuthMethod: method, clientName: "RP"),
                dynamic: false)
            let now = time.now()
            user = UserRecord(
                id: UUID(), aud: "authenticated", role: "authenticated", email: "ada@example.com", passwordHash: nil, appMetadata: [:],
                userMetadata: ["name": "Ada"], createdAt: now, updatedAt: now)
            store.add(user)
            let session = SessionRecord(
                id: UUID(), userID: user.id, aal: "aal2",
                amr: [AuthenticationMethod(method: "password", timestamp: 1), AuthenticationMethod(method: "totp", timestamp: 5)],
                refreshSalt: Array(repeating: 3, count: 32), createdAt: now, updatedAt: now)
            store.add(session)
            principal = Principal(claims: AccessTokenClaims(sub: user.id.uuidString), user: user, session: session, isAdmin: false)
        }

        static let verifier = String(repeating: "v", count: 43)
        static let browser = ClientInfo(ip: "198.51.100.7")

        func request(scope: String? = "openid email", method: String = "S256", challenge: String? = nil, state: String? = "st")
            -> OAuthAuthorizeRequest
        {
            OAuthAuthorizeRequest(
                clientID: client.clientID.uuidString, redirectURI: OAuthServerTests.redirect, scope: scope, state: state,
                codeChallenge: challenge ?? PKCEVerifier.s256(Self.verifier), codeChallengeMethod: method, nonce: "n-1")
        }

        /// The request's authorization id, from where `authorize` sends the browser.
        func open(_ request: OAuthAuthorizeRequest? = nil) async throws -> String {
            let location = try await server.authorize(request ?? self.request(), client: Self.browser)
            #expect(location.hasPrefix(OAuthServerTests.consentPage + "?authorization_id="))
            return String(location.split(separator: "=").last ?? "")
        }

        /// A code for the principal, approved.
        func code(scope: String = "openid email") async throws -> String {
            let id = try await open(request(scope: scope))
            if case .approved(let remembered) = try await server.authorization(id: id, principal: principal, origin: nil) {
                return try #require(Self.query(remembered.redirectURL)["code"])
            }
            let answer = try await server.consent(id: id, .approve, principal: principal, origin: nil)
            return try #require(Self.query(answer.redirectURL)["code"])
        }

        func exchange(_ code: String, verifier: String = Fixture.verifier, secret: String? = nil) async throws -> OAuthTokenResponse {
            try await server.token(
                OAuthTokenRequest(
                    grantType: "authorization_code", code: code, redirectURI: OAuthServerTests.redirect, codeVerifier: verifier,
                    basic: (client.clientID.uuidString, secret ?? client.clientSecret ?? "")), client: ClientInfo(ip: "192.0.2.1"))
        }

        static func query(_ url: String) -> [String: String] {
            let query = url.split(separator: "?", maxSplits: 1).last.map(String.init) ?? ""
            var fields: [String: String] = [:]
            for pair in query.split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? "" }
                fields[parts[0]] = parts.count > 1 ? parts[1] : ""
            }
            return fields
        }

        func error(_ work: () async throws -> some Any) async -> AuthError? { await thrownAuthError(work) }
    }

    @Test func theCodeFlowIssuesTheClientsOwnSessionAndAnIDToken() async throws {
        let f = try await Fixture()
        let code = try await f.code()
        let stored = try #require(f.store.state.withLock { $0.oauthAuthorizations.values.first })
        #expect(stored.codeHash == OneTimeSecrets.linkHash(code) && stored.codeHash != code && stored.aal == "aal2")
        let tokens = try await f.exchange(code)
        #expect(tokens.scope == "openid email" && tokens.tokenType == "bearer")
        let session = try #require(f.store.sessions(userID: f.user.id).first { $0.oauthClientID != nil })
        #expect(session.oauthClientID == f.client.clientID && session.scopes == "openid email" && session.aal == "aal2")
        let claims = try #require(await f.answers.issuer.verify(tokens.accessToken))
        #expect(claims.clientID == f.client.clientID.uuidString.lowercased() && claims.scope == "openid email")
        let signedID = try #require(tokens.idToken)
        let idToken = try #require(await f.answers.issuer.verify(signedID))
        let id = try #require(idToken.custom)
        #expect(id["aud"] == .string(f.client.clientID.uuidString.lowercased()) && id["nonce"] == "n-1" && id["acr"] == "aal2")
        #expect(id["amr"] == ["password", "totp"] && id["auth_time"] == .number(5) && id["email"] == "ada@example.com")
        #expect(id["name"] == nil, "no profile scope, no name")
        // The audit log has the consent and the sign-in.
        let actions = f.store.state.withLock { $0.events.map(\.action) }
        #expect(actions.contains(.oauthConsentGranted) && actions.contains(.login))
    }

    @Test func aCodeTwiceEndsTheSessionItGave() async throws {
        let f = try await Fixture()
        let code = try await f.code()
        _ = try await f.exchange(code)
        #expect(f.store.sessions(userID: f.user.id).contains { $0.oauthClientID != nil })
        let again = await f.error { try await f.exchange(code) }
        #expect(again?.oauthError == "invalid_grant")
        #expect(!f.store.sessions(userID: f.user.id).contains { $0.oauthClientID != nil })
        #expect(f.store.state.withLock { $0.events.map(\.action) }.contains(.oauthCodeReuse))
    }

    @Test func aWrongVerifierOrClientLeavesTheCodeToItsOwner() async throws {
        let f = try await Fixture()
        let code = try await f.code()
        #expect(await f.error { try await f.exchange(code, verifier: String(repeating: "w", count: 43)) }?.oauthError == "invalid_grant")
        #expect(await f.error { try await f.exchange(code, secret: "not the secret") }?.oauthError == "invalid_client")
        #expect(await f.error { try await f.exchange(code, verifier: "short") }?.oauthError == "invalid_grant")
        _ = try await f.exchange(code)
    }

    @Test func anExpiredCodeOrRequestIsRefused() async throws {
        let f = try await Fixture()
        let code = try await f.code()
        f.time.advance(by: 601)
        #expect(await f.error { try await f.exchange(code) }?.message == "Authorization code has expired")
        let id = try await f.open()
        f.time.advance(by: 601)
        #expect(await f.error { try await f.server.authorization(id: id, principal: f.principal, origin: nil) }?.status == 404)
    }

    @Test func aBanLandingBeforeTheExchangeWins() async throws {
        let f = try await Fixture()
        let code = try await f.code()
        f.store.change(f.user.id) { $0.bannedUntil = f.time.now().addingTimeInterval(3600) }
        #expect(await f.error { try await f.exchange(code) }?.message == "User is banned")
        #expect(!f.store.sessions(userID: f.user.id).contains { $0.oauthClientID != nil })
    }

    @Test func theFirstUserToOpenARequestOwnsIt() async throws {
        let f = try await Fixture()
        let id = try await f.open()
        _ = try await f.server.authorization(id: id, principal: f.principal, origin: nil)
        var other = TestPrincipals.signedIn()
        other.user.email = "mallory@example.com"
        #expect(await f.error { try await f.server.authorization(id: id, principal: other, origin: nil) }?.status == 404)
        #expect(await f.error { try await f.server.consent(id: id, .approve, principal: other, origin: nil) }?.status == 404)
        #expect(await f.error { try await f.server.authorization(id: "x", principal: f.principal, origin: nil) }?.status == 404)
        #expect(
            await f.error { try await f.server.authorization(id: id, principal: f.principal, origin: "https://evil.example") }?.message
                == "unauthorized request origin")
        // Denied: back to the client with access_denied and its state; then nothing more.
        let denied = try await f.server.consent(id: id, .deny, principal: f.principal, origin: "https://app.example.com")
        #expect(Fixture.query(denied.redirectURL)["error"] == "access_denied" && Fixture.query(denied.redirectURL)["state"] == "st")
        #expect(
            await f.error { try await f.server.consent(id: id, .approve, principal: f.principal, origin: nil) }?.code == .validationFailed)
    }

    @Test func racingConsentsApproveOnce() async throws {
        let f = try await Fixture()
        let id = try await f.open()
        _ = try await f.server.authorization(id: id, principal: f.principal, origin: nil)
        let results = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask { (try? await f.server.consent(id: id, .approve, principal: f.principal, origin: nil)) != nil }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.filter { $0 }.count == 1)
    }

    @Test func consentIsRememberedForItsScopesAndRevokingItEndsTheClientsSessions() async throws {
        let f = try await Fixture()
        let tokens = try await f.exchange(try await f.code(scope: "openid email"))
        // Fewer scopes than granted: approved on opening.
        let id = try await f.open(f.request(scope: "email"))
        guard case .approved(let answer) = try await f.server.authorization(id: id, principal: f.principal, origin: nil) else {
            Issue.record("not approved at once")
            return
        }
        #expect(Fixture.query(answer.redirectURL)["code"] != nil)
        // More than granted: asked again.
        let wider = try await f.open(f.request(scope: "openid profile"))
        guard case .details = try await f.server.authorization(id: wider, principal: f.principal, origin: nil) else {
            Issue.record("approved beyond the grant")
            return
        }
        #expect(try await f.server.grants(principal: f.principal).map(\.scopes) == [["openid", "email"]])
        // An approved code not yet spent dies with the grant, as do the client's sessions.
        try await f.server.revokeGrant(clientID: f.client.clientID.uuidString, principal: f.principal)
        #expect(!f.store.sessions(userID: f.user.id).contains { $0.oauthClientID != nil })
        let own = try #require(f.principal.session?.id)
        #expect(f.store.session(id: own) != nil, "the user's own session stays")
        let approvedCode = try #require(Fixture.query(answer.redirectURL)["code"])
        #expect(await f.error { try await f.exchange(approvedCode) }?.oauthError == "invalid_grant")
        let refresh = await f.error {
            try await f.server.token(
                OAuthTokenRequest(
                    grantType: "refresh_token", refreshToken: tokens.refreshToken,
                    basic: (f.client.clientID.uuidString, f.client.clientSecret ?? "")), client: ClientInfo(ip: "192.0.2.1"))
        }
        #expect(refresh != nil)
        #expect(try await f.server.grants(principal: f.principal).isEmpty)
        #expect(
            await f.error { try await f.server.revokeGrant(clientID: f.client.clientID.uuidString, principal: f.principal) }?.status == 404)
    }

    @Test func aClientsRefreshTokenIsTheClientsAlone() async throws {
        let f = try await Fixture()
        let tokens = try await f.exchange(try await f.code())
        let rotated = try await f.server.token(
            OAuthTokenRequest(
                grantType: "refresh_token", refreshToken: tokens.refreshToken,
                basic: (f.client.clientID.uuidString, f.client.clientSecret ?? "")), client: ClientInfo(ip: "192.0.2.1"))
        #expect(rotated.refreshToken != tokens.refreshToken && rotated.scope == "openid email" && rotated.idToken == nil)
        // The app's own grant refuses it.
        let atToken = await f.error {
            try await f.server.refresh.refresh(
                RefreshTokenGrantRequest(refreshToken: rotated.refreshToken), client: ClientInfo(ip: "192.0.2.1"))
        }
        #expect(atToken?.oauthError == "invalid_grant")
    }

    @Test func aClientsTokenIsRefusedOnTheUsersOwnRoutes() async throws {
        let f = try await Fixture()
        let tokens = try await f.exchange(try await f.code())
        let authenticator = Authenticator(answers: f.answers, accounts: f.store, time: f.time)
        let refused = await f.error { try await authenticator.authenticate(authorization: "Bearer \(tokens.accessToken)") }
        #expect(refused?.code == .insufficientScope && refused?.status == 403)
        let principal = try await authenticator.authenticate(authorization: "Bearer \(tokens.accessToken)", allowingClients: true)
        let info = try f.server.userInfo(principal: principal)
        #expect(info["email"] == "ada@example.com" && info["email_verified"] == false && info["name"] == nil)
        // The app's own token gets the subject alone at userinfo, as GoTrue's.
        #expect(try f.server.userInfo(principal: f.principal).keys.sorted() == ["sub"])
        // An id_token is never an access token: its audience is the client.
        let idToken = try #require(tokens.idToken)
        #expect(
            await f.error { try await authenticator.authenticate(authorization: "Bearer \(idToken)", allowingClients: true) }?.code
                == .badJWT)
    }

    @Test(arguments: [
        ("code_challenge_method", "plain", "invalid_request"), ("scope", "openid admin", "invalid_scope"),
        ("code_challenge", "", "invalid_request"), ("resource", "https://api.example.com/x#y", "invalid_target"),
        ("resource", "https://api.example.com/?q=1", "invalid_target"),
    ])
    func faultsGoBackToTheClient(field: String, value: String, error: String) async throws {
        let f = try await Fixture()
        var request = f.request()
        switch field {
        case "code_challenge_method": request.codeChallengeMethod = value
        case "scope": request.scope = value
        case "code_challenge": request.codeChallenge = value
        default: request.resource = value
        }
        let location = try await f.server.authorize(request, client: Fixture.browser)
        #expect(
            location.hasPrefix(Self.redirect + "?") && Fixture.query(location)["error"] == error && Fixture.query(location)["state"] == "st"
        )
    }

    @Test func plainPKCEInGoTruesProfileAndNoConsentPageIsAServerError() async throws {
        let plain = try await Fixture(settings: .init(consentPage: Self.consentPage, allowsPlainPKCE: true))
        let id = try await plain.open(plain.request(method: "plain", challenge: Fixture.verifier))
        #expect(id.count == 32)
        let none = try await Fixture(settings: .init(consentPage: nil))
        #expect(Fixture.query(try await none.server.authorize(none.request(), client: Fixture.browser))["error"] == "server_error")
    }

    @Test func aDeletedClientsGrantsEnd() async throws {
        let f = try await Fixture()
        _ = try await f.exchange(try await f.code())
        let pending = try await f.code()
        _ = try await f.store.deleteOAuthClient(id: f.client.clientID, at: f.time.now(), audit: [])
        #expect(!f.store.sessions(userID: f.user.id).contains { $0.oauthClientID != nil })
        #expect(try await f.server.grants(principal: f.principal).isEmpty)
        #expect(await f.error { try await f.exchange(pending) }?.oauthError == "invalid_client")
    }

    @Test func authorizationRequestsAreCountedPerIP() async throws {
        let f = try await Fixture(settings: .init(consentPage: OAuthServerTests.consentPage, tokenPerIP: .init(count: 2, period: 300)))
        _ = try await f.open()
        _ = try await f.open()
        #expect(await f.error { try await f.server.authorize(f.request(), client: Fixture.browser) }?.code == .overRequestRateLimit)
        // Another address has its own budget.
        _ = try await f.server.authorize(f.request(), client: ClientInfo(ip: "203.0.113.1"))
    }
}
