import Crypto
import Foundation
import Latchkey
import LatchkeyTesting
import Testing

@Suite struct PKCEClientTests {
    @Test func linkRequestsCarryAChallengeAndTheCodeIsExchangedWithItsVerifier() async throws {
        let transport = MockTransport()
        let storage = InMemorySessionStorage()
        await transport.respond(to: "POST", path: "/otp", json: "{}")
        await transport.respond(to: "POST", path: "/token", json: Fixtures.sessionJSON())
        let auth = try await Fixtures.client(transport: transport, storage: storage, flowType: .pkce)
        _ = try await auth.signInWithEmailCode(email: "ada@example.com")
        let otp = try #require(await transport.requests.first?.json)
        #expect(otp["code_challenge_method"] == "s256")
        let challenge = try #require(otp["code_challenge"]?.stringValue)
        #expect(challenge.count == 43)

        try await auth.session(from: URL(string: "myapp://auth-callback?code=the-auth-code")!)
        let exchange = try #require(await transport.requests.last)
        #expect(exchange.query == ["grant_type": "pkce"])
        #expect(exchange.json?["auth_code"] == "the-auth-code")
        let verifier = try #require(exchange.json?["code_verifier"]?.stringValue)
        #expect(verifier.count == 86)
        let digest = Data(SHA256.hash(data: Array(verifier.utf8))).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        #expect(digest == challenge)
        #expect(await auth.currentSession?.accessToken == "access-1")
        // The verifier is spent.
        #expect(await storage.load(key: "latchkey.session-code-verifier") == nil)
    }

    @Test func aCodeWithoutAVerifierExplainsWhatToDo() async throws {
        let auth = try await Fixtures.client(flowType: .pkce)
        do {
            try await auth.session(from: URL(string: "myapp://auth-callback?code=elsewhere")!)
            Issue.record("expected an error")
        } catch let error as LatchkeyError {
            #expect(error.code == .badCodeVerifier)
            #expect(error.message.contains("enter the code from the email"))
        }
    }
}
