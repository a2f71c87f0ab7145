import Foundation
import Latchkey
import LatchkeyTesting
import Testing

/// The passkey wire calls every platform has (an app with its own authenticator, or a browser
/// bridge), and the decoding of options a platform authenticator takes.
@Suite struct PasskeyTests {
    static let registrationOptions = #"""
        {"challenge_id":"7d1c4f5e-64a2-4b0e-9a51-0c1d2e3f4a5b","expires_at":1800000300,"options":{
        "rp":{"name":"Example","id":"example.com"},"user":{"name":"ada@example.com","displayName":"Ada","id":"YWJj"},
        "challenge":"AQIDBA","excludeCredentials":[{"type":"public-key","id":"BQY"}],
        "authenticatorSelection":{"residentKey":"required","userVerification":"required"}}}
        """#
    static let signInOptions = #"""
        {"challenge_id":"7d1c4f5e-64a2-4b0e-9a51-0c1d2e3f4a5b","expires_at":1800000300,"options":{
        "challenge":"AQIDBA","rpId":"example.com","userVerification":"preferred","timeout":300000}}
        """#

    @Test func registrationSendsTheChallengeAndTheCredentialWithTheUsersToken() async throws {
        let transport = MockTransport()
        await transport.respond(to: "POST", path: "/passkeys/registration/options", json: Self.registrationOptions)
        await transport.respond(
            to: "POST", path: "/passkeys/registration/verify",
            json: #"{"id":"0b9d0c1e-2f3a-4b5c-8d6e-7f8091a2b3c4","friendly_name":"iCloud Keychain","created_at":"2026-11-26T10:00:00Z"}"#)
        let auth = try await Fixtures.client(transport: transport, stored: try Fixtures.session())
        let options = try await auth.passkeyRegistrationOptions()
        let ceremony = try #require(options.ceremony)
        #expect(ceremony.relyingPartyID == "example.com" && ceremony.challenge == Data([1, 2, 3, 4]))
        #expect(ceremony.userID == Data("abc".utf8) && ceremony.userName == "ada@example.com")
        #expect(ceremony.excludedCredentialIDs == [Data([5, 6])] && ceremony.requiresUserVerification)

        let credential = PasskeyCredential.registration(
            credentialID: Data([9, 9]), clientDataJSON: Data("{}".utf8), attestationObject: Data([0xa0]), transports: ["internal"])
        let passkey = try await auth.registerPasskey(challengeID: options.challengeID, credential: credential)
        #expect(passkey.friendlyName == "iCloud Keychain")
        let request = try #require(await transport.requests.last)
        #expect(request.path == "/passkeys/registration/verify" && request.headers["Authorization"]?.hasPrefix("Bearer ") == true)
        #expect(
            request.json == [
                "challenge_id": "7d1c4f5e-64a2-4b0e-9a51-0c1d2e3f4a5b",
                "credential": [
                    "id": "CQk", "rawId": "CQk", "type": "public-key",
                    "response": ["clientDataJSON": "e30", "attestationObject": "oA", "transports": ["internal"]],
                ],
            ])
    }

    @Test func aPasskeySignsInWithoutAUsernameAndIsManaged() async throws {
        let transport = MockTransport()
        await transport.respond(to: "POST", path: "/passkeys/authentication/options", json: Self.signInOptions)
        await transport.respond(to: "POST", path: "/passkeys/authentication/verify", json: Fixtures.sessionJSON())
        let auth = try await Fixtures.client(transport: transport)
        let options = try await auth.passkeyAuthenticationOptions()
        let ceremony = try #require(options.ceremony)
        #expect(ceremony.relyingPartyID == "example.com" && !ceremony.requiresUserVerification && ceremony.userID == nil)
        let assertion = PasskeyCredential.assertion(
            credentialID: Data([1]), clientDataJSON: Data("{}".utf8), authenticatorData: Data([2]), signature: Data([3]),
            userHandle: Data("abc".utf8))
        try await auth.signInWithPasskey(challengeID: options.challengeID, credential: assertion)
        #expect(await auth.currentSession?.accessToken == "access-1")
        let sent = try #require(await transport.requests.last)
        #expect(sent.headers["Authorization"] == nil)
        #expect(sent.json?["credential"]?.objectValue?["response"]?.objectValue?["userHandle"] == "YWJj")

        let id = "0b9d0c1e-2f3a-4b5c-8d6e-7f8091a2b3c4"
        await transport.respond(
            to: "GET", path: "/passkeys", json: #"[{"id":"\#(id)","created_at":"2026-11-26T10:00:00Z","backed_up":true}]"#)
        await transport.respond(
            to: "PATCH", path: "/passkeys/\(id)",
            json: #"{"id":"\#(id)","friendly_name":"Work laptop","created_at":"2026-11-26T10:00:00Z"}"#)
        await transport.respond(to: "DELETE", path: "/passkeys/\(id)", .init(status: 204, body: Data()))
        let listed = try await auth.passkeys()
        #expect(listed.map(\.id) == [UUID(uuidString: id)] && listed.first?.backedUp == true && listed.first?.friendlyName == nil)
        let passkeyID = try #require(UUID(uuidString: id))
        #expect(try await auth.renamePasskey(passkeyID, to: "Work laptop").friendlyName == "Work laptop")
        #expect(await transport.requests.last?.json == ["friendly_name": "Work laptop"])
        try await auth.deletePasskey(passkeyID)
        #expect(await transport.requests.last?.method == "DELETE")
    }

    @Test func aRefusalCarriesGoTruesCodeAndSignsNobodyIn() async throws {
        let transport = MockTransport()
        await transport.respond(
            to: "POST", path: "/passkeys/authentication/verify", status: 400,
            json: #"{"code":"webauthn_verification_failed","message":"Credential verification failed"}"#)
        let auth = try await Fixtures.client(transport: transport)
        let assertion = PasskeyCredential.assertion(
            credentialID: Data([1]), clientDataJSON: Data(), authenticatorData: Data(), signature: Data(), userHandle: Data())
        let error = await #expect(throws: LatchkeyError.self) {
            try await auth.signInWithPasskey(challengeID: UUID(), credential: assertion)
        }
        #expect(error?.code.rawValue == "webauthn_verification_failed")
        #expect(await auth.currentSession == nil)
    }
}

/// The hosted pages' URL: the page, the return address and a PKCE challenge whose verifier the
/// client keeps, whatever its flow type, and the code that comes back exchanged with it.
@Suite struct HostedPageTests {
    @Test func aHostedPageCarriesAChallengeAndItsCodeIsExchangedWithTheVerifier() async throws {
        let transport = MockTransport()
        await transport.respond(to: "POST", path: "/token", json: Fixtures.sessionJSON())
        let auth = try await Fixtures.client(transport: transport)
        let url = try await auth.hostedPageURL(.signUp, redirectTo: try #require(URL(string: "myapp://login")))
        let parts = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
        let query = Dictionary((parts.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { a, _ in a })
        #expect(parts.path.hasSuffix("/ui/sign-up") && query["redirect_to"] == "myapp://login")
        #expect(query["code_challenge_method"] == "s256" && query["code_challenge"]?.count == 43)
        try await auth.session(from: try #require(URL(string: "myapp://login?code=the-code")))
        let exchange = try #require(await transport.requests.last)
        #expect(exchange.query == ["grant_type": "pkce"] && exchange.json?["auth_code"] == "the-code")
        #expect(exchange.json?["code_verifier"]?.stringValue?.count ?? 0 >= 43)
        #expect(await auth.currentSession?.accessToken == "access-1")
    }
}
