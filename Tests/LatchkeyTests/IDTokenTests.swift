import Foundation
import Latchkey
import LatchkeyTesting
import Testing

@Suite struct IDTokenTests {
    @Test func signInWithIdTokenSendsGoTruesGrantAndSignsIn() async throws {
        let transport = MockTransport()
        await transport.respond(to: "POST", path: "/token", json: Fixtures.sessionJSON())
        let auth = try await Fixtures.client(transport: transport)
        try await auth.signInWithIdToken(
            provider: .apple, idToken: "eyJ.id.token", nonce: "raw-nonce", data: ["full_name": "Ada Lovelace"])
        let request = try #require(await transport.requests.first)
        #expect(request.query == ["grant_type": "id_token"] && request.headers["Authorization"] == nil)
        #expect(
            request.json
                == ["provider": "apple", "id_token": "eyJ.id.token", "nonce": "raw-nonce", "data": ["full_name": "Ada Lovelace"]])
        #expect(await auth.currentSession?.accessToken == "access-1")
        #expect(IDTokenProvider.custom("acme").rawValue == "custom:acme")
    }

    @Test func linkIdentitySendsTheSignedInUsersToken() async throws {
        let transport = MockTransport()
        await transport.respond(to: "POST", path: "/token", json: Fixtures.sessionJSON())
        let auth = try await Fixtures.client(transport: transport, stored: try Fixtures.session())
        let stored = try #require(await auth.currentSession)
        try await auth.linkIdentity(provider: .google, idToken: "eyJ.id.token", accessToken: "ya29")
        let request = try #require(await transport.requests.last)
        #expect(request.headers["Authorization"] == "Bearer \(stored.accessToken)")
        #expect(
            request.json == ["provider": "google", "id_token": "eyJ.id.token", "access_token": "ya29", "link_identity": true])
    }

    @Test func aNonceGivesTheServerItsRawValueAndTheProviderItsHash() {
        let nonce = SignInNonce(raw: "abc")
        #expect(nonce.hashed == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let fresh = SignInNonce()
        #expect(fresh.raw.count == 43 && fresh != SignInNonce() && fresh.hashed.count == 64)
    }

    @Test func oauthURLsCarryTheProviderAndAPKCEChallenge() async throws {
        let transport = MockTransport()
        let auth = try await Fixtures.client(transport: transport, flowType: .pkce)
        let url = try await auth.signInWithOAuthURL(
            provider: .google, redirectTo: URL(string: "myapp://login"), scopes: ["email", "drive"])
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        let query = Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { a, _ in a })
        #expect(url.path.hasSuffix("/authorize") && query["provider"] == "google" && query["redirect_to"] == "myapp://login")
        #expect(query["scopes"] == "email,drive" && query["code_challenge_method"] == "s256" && query["code_challenge"]?.count == 43)
    }
}
