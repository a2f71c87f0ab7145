import Crypto
import Foundation
import LatchkeyAPI
import Logging
import Synchronization
import Testing

@testable import LatchkeyCore

/// The redirect flow below HTTP: the authorization URL, the sealed single-use state, the implicit
/// and PKCE endings, and refusals that go back to the app or to the site URL.
@Suite struct OAuthRedirectsTests {
    static let client = ClientInfo(ip: "192.0.2.10", userAgent: "test")

    struct Fixture {
        let base: IDTokenSignInTests.Fixture
        let provider = InMemoryOAuthProviderClient()
        let flows: OAuthRedirects

        init() {
            var google = IDTokenSignInTests.google
            google.oauth = OAuthClientSettings(
                secret: .fixed("s3cret"), redirectURI: "https://auth.example/callback", scopes: ["openid", "email"])
            base = IDTokenSignInTests.Fixture(providers: [google])
            flows = OAuthRedirects(
                signIn: base.signIn, client: provider, limits: base.store, serverSecret: Array(repeating: 7, count: 32),
                redirects: RedirectPolicy(siteURL: "https://app.example", allowList: ["myapp://callback"]), lifetime: 300)
        }

        /// Authorizes and returns the URL's query.
        func authorize(redirectTo: String? = "myapp://callback", challenge: String? = nil, browser: String = "browser-A")
            async throws -> [String: String]
        {
            let url = try await flows.authorize(
                provider: "google", redirectTo: redirectTo, scopes: "drive", codeChallenge: challenge,
                codeChallengeMethod: challenge == nil ? nil : "s256", binding: browser)
            #expect(url.hasPrefix("https://google.example/authorize?"))
            let items = URLComponents(string: url)?.queryItems ?? []
            return Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
        }

        /// The provider's approval: a code whose id token carries the flow's nonce.
        func approve(_ query: [String: String], email: String = "ada@example.com") -> String {
            var claims = base.claims(email: email)
            claims["nonce"] = .string(query["nonce"] ?? "")
            let code = "code-\(UUID().uuidString)"
            provider.approve(
                code, tokens: ProviderTokens(accessToken: "ya29", idToken: base.reader.issue(claims, by: IdentityProvider.googleIssuer)))
            return code
        }

        func callback(_ query: [String: String], code: String?, error: String? = nil, browser: String? = "browser-A") async
            -> OAuthRedirects.Outcome
        {
            await flows.callback(
                OAuthRedirects.Callback(state: query["state"], code: code, error: error, errorDescription: error.map { "\($0)!" }),
                binding: browser, client: OAuthRedirectsTests.client)
        }
    }

    @Test func theAuthorizationURLCarriesTheClientStateNonceAndPKCE() async throws {
        let f = Fixture()
        let query = try await f.authorize()
        #expect(query["client_id"] == "g-web" && query["redirect_uri"] == "https://auth.example/callback")
        #expect(query["response_type"] == "code" && query["scope"] == "openid email drive" && query["code_challenge_method"] == "S256")
        #expect(query["nonce"]?.count == 64 && (query["state"]?.count ?? 0) > 40 && query["redirect_to"] == nil)
        await #expect(throws: AuthError.validation("Unsupported provider: Provider github could not be found")) {
            try await f.flows.authorize(
                provider: "github", redirectTo: nil, scopes: nil, codeChallenge: nil, codeChallengeMethod: nil, binding: "b")
        }
        await #expect(throws: AuthError.self) {
            try await f.flows.authorize(
                provider: "google", redirectTo: nil, scopes: nil, codeChallenge: "short", codeChallengeMethod: "s256", binding: "b")
        }
    }

    @Test func theImplicitFlowSignsInOnceAndTheStateIsSpent() async throws {
        let f = Fixture()
        let query = try await f.authorize()
        let outcome = await f.callback(query, code: f.approve(query))
        guard case .session(let session, let providerToken, let target) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(target == "myapp://callback" && providerToken == "ya29" && session.user.email == "ada@example.com")
        #expect(f.provider.verifiers.withLock { $0.first??.isEmpty == false })
        guard case .failure(let error, _, let to) = await f.callback(query, code: f.approve(query)) else {
            Issue.record("a replayed state was accepted")
            return
        }
        #expect(error.message == "OAuth state has already been used" && to == "https://app.example")
    }

    @Test func withAChallengeTheAppGetsACodeAndNoSessionYet() async throws {
        let f = Fixture()
        let verifier = String(repeating: "v", count: 43)
        let challenge = Base64URL.encode(SHA256.hash(data: Data(verifier.utf8)))
        let query = try await f.authorize(challenge: challenge)
        guard case .authCode(let code, "myapp://callback") = await f.callback(query, code: f.approve(query)) else {
            Issue.record("no code")
            return
        }
        #expect(f.base.store.sessionCount == 0 && f.base.store.flowStates.count == 1)
        #expect(f.base.store.flowStates.first?.authCodeHash == OneTimeSecrets.linkHash(code))
        #expect(try await f.base.actions() == [.userSignedUp])
    }

    @Test func refusalsGoBackToTheAppOrTheSiteURL() async throws {
        let f = Fixture()
        let offList = try await f.authorize(redirectTo: "https://evil.example")
        guard case .failure(_, "access_denied", "https://app.example") = await f.callback(offList, code: nil, error: "access_denied")
        else { Issue.record("the provider's error was not passed on to the site URL"); return }
        let query = try await f.authorize()
        guard case .failure(let missing, nil, "myapp://callback") = await f.callback(query, code: nil) else {
            Issue.record("a missing code was accepted"); return
        }
        #expect(missing.code == .badOAuthCallback)
        var forged = try await f.authorize()
        forged["state"] = String(forged["state"]!.dropLast(2)) + "xx"
        guard case .failure(let invalid, nil, "https://app.example") = await f.callback(forged, code: "c") else {
            Issue.record("a forged state was accepted"); return
        }
        #expect(invalid.code == .badOAuthState)
        let expired = try await f.authorize()
        f.base.time.advance(by: 301)
        guard case .failure(let late, nil, "https://app.example") = await f.callback(expired, code: f.approve(expired)) else {
            Issue.record("an expired state was accepted"); return
        }
        #expect(late.message == "OAuth state has expired")
        #expect(f.base.store.sessionCount == 0)
    }

    /// Login CSRF: a state finishes only in the browser whose binding cookie it was minted for. A
    /// callback without the cookie, or with another browser's, is refused to the site URL and
    /// stores nothing, and leaves the state unspent for its own browser.
    @Test func aStateFinishesOnlyInTheBrowserThatStartedIt() async throws {
        let f = Fixture()
        let query = try await f.authorize(browser: "mallory")
        for browser in [nil, "alice", "", "mallor"] as [String?] {
            guard case .failure(let error, nil, "https://app.example") = await f.callback(query, code: f.approve(query), browser: browser)
            else { Issue.record("a state finished in browser \(String(describing: browser))"); return }
            #expect(error.code == .badOAuthState && error.message == "OAuth state was not started in this browser")
        }
        #expect(f.base.store.sessionCount == 0)
        #expect(try await f.base.store.listUsers(emailContains: nil, anonymous: nil, offset: 0, limit: 10).total == 0)
        guard case .session = await f.callback(query, code: f.approve(query), browser: "mallory") else {
            Issue.record("the starting browser could not finish"); return
        }
    }

    /// The provider's `error_description` (anyone can put text in a callback URL) never reaches
    /// the app: a fixed text per code, and an unknown code is `server_error`.
    @Test func theProvidersErrorTextIsReplaced() async throws {
        let f = Fixture()
        let cases = [
            ("access_denied", "access_denied"), ("<script>alert(1)</script>", "server_error"), ("login_required", "login_required"),
        ]
        for (given, passed) in cases {
            let query = try await f.authorize()
            guard case .failure(let error, let code, "myapp://callback") = await f.callback(query, code: nil, error: given) else {
                Issue.record("no failure for \(given)"); return
            }
            #expect(code == passed)
            #expect(!error.message.contains(given) && !error.message.contains("!"))
        }
    }

    /// Linking: the ticket binds whichever browser opens it, works once and for two minutes, and
    /// the callback links only while the session that asked still exists.
    @Test func aLinkTicketWorksOnceAndTheLinkNeedsItsSession() async throws {
        let f = Fixture()
        let user = UserRecord(
            id: UUID(), aud: "authenticated", role: "authenticated", email: "grace@example.com", passwordHash: "x",
            emailConfirmedAt: f.base.time.now(), appMetadata: ["provider": "email", "providers": ["email"]], userMetadata: [:],
            createdAt: f.base.time.now(), updatedAt: f.base.time.now())
        f.base.store.add(user)
        let session = SessionRecord(
            id: UUID(), userID: user.id, amr: [], refreshSalt: [1], createdAt: user.createdAt, updatedAt: user.createdAt)
        f.base.store.add(session)
        let linking = LinkingSession(userID: user.id, sessionID: session.id)
        func ticket() async throws -> String {
            let url = try await f.flows.linkTicketURL(provider: "google", redirectTo: "myapp://callback", scopes: nil, linking: linking)
            #expect(url.hasPrefix("http://localhost:9999/user/identities/continue?ticket="))
            return try #require(URLComponents(string: url)?.queryItems?.first { $0.name == "ticket" }?.value)
        }
        func query(_ url: String) -> [String: String] {
            Dictionary(
                (URLComponents(string: url)?.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
        }
        // Once only.
        let first = try await ticket()
        let opened = query(try await f.flows.continueLink(ticket: first, binding: "alice"))
        await #expect(throws: AuthError(.badOAuthState, "OAuth state has already been used")) {
            try await f.flows.continueLink(ticket: first, binding: "alice")
        }
        // Finished in another browser: refused; in the one that opened it: linked.
        guard
            case .failure(let refused, nil, _) = await f.callback(
                opened, code: f.approve(opened, email: "g@example.com"), browser: "mallory")
        else { Issue.record("a link finished in another browser"); return }
        #expect(refused.code == .badOAuthState)
        guard case .session(let linked, _, _) = await f.callback(opened, code: f.approve(opened, email: "g@example.com"), browser: "alice")
        else { Issue.record("the link did not finish"); return }
        #expect(linked.user.id == user.id && (linked.user.identities ?? []).contains { $0.provider == "google" })
        // Expired.
        let late = try await ticket()
        f.base.time.advance(by: 121)
        await #expect(throws: AuthError(.badOAuthState, "OAuth state has expired")) {
            try await f.flows.continueLink(ticket: late, binding: "alice")
        }
        // The session ended before the callback: nothing linked.
        let second = query(try await f.flows.continueLink(ticket: try await ticket(), binding: "alice"))
        f.base.store.removeSession(id: session.id)
        guard
            case .failure(let gone, nil, "myapp://callback") = await f.callback(
                second, code: f.approve(second, email: "g2@example.com"), browser: "alice")
        else { Issue.record("a link finished after its session ended"); return }
        #expect(gone.code == .sessionNotFound)
    }
}
