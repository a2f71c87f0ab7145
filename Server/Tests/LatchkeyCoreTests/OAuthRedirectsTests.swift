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
        func authorize(redirectTo: String? = "myapp://callback", challenge: String? = nil) async throws -> [String: String] {
            let url = try await flows.authorize(
                provider: "google", redirectTo: redirectTo, scopes: "drive", codeChallenge: challenge,
                codeChallengeMethod: challenge == nil ? nil : "s256")
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

        func callback(_ query: [String: String], code: String?, error: String? = nil) async -> OAuthRedirects.Outcome {
            await flows.callback(
                OAuthRedirects.Callback(state: query["state"], code: code, error: error, errorDescription: error.map { "\($0)!" }),
                client: OAuthRedirectsTests.client)
        }
    }

    @Test func theAuthorizationURLCarriesTheClientStateNonceAndPKCE() async throws {
        let f = Fixture()
        let query = try await f.authorize()
        #expect(query["client_id"] == "g-web" && query["redirect_uri"] == "https://auth.example/callback")
        #expect(query["response_type"] == "code" && query["scope"] == "openid email drive" && query["code_challenge_method"] == "S256")
        #expect(query["nonce"]?.count == 64 && (query["state"]?.count ?? 0) > 40 && query["redirect_to"] == nil)
        await #expect(throws: AuthError.validation("Unsupported provider: Provider github could not be found")) {
            try await f.flows.authorize(provider: "github", redirectTo: nil, scopes: nil, codeChallenge: nil, codeChallengeMethod: nil)
        }
        await #expect(throws: AuthError.self) {
            try await f.flows.authorize(
                provider: "google", redirectTo: nil, scopes: nil, codeChallenge: "short", codeChallengeMethod: "s256")
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
}
