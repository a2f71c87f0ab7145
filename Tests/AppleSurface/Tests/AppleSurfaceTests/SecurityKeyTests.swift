import AuthenticationServices
import Foundation
import LatchkeyTesting
import Testing

@testable import Latchkey

/// Issue #39, Apple's part: a WebAuthn factor answered with a security key. The sheet gets the
/// requests the server's options call for (an assertion from a security key or a device passkey,
/// allowing the factor's key alone; a registration with no resident key, ES256, the other keys
/// excluded), the answer is read where it arrives, and the server gets it in GoTrue's shape.
extension AuthenticationServicesTests {  // the same stand-in state: one test at a time
    static let factorID = UUID(uuidString: "3A7C6F0E-2B1D-4E5F-8A9B-0C1D2E3F4A5B")!
    static let keyID = Data([9, 8, 7, 6])
    static var factorPath: String { "/factors/" + factorID.uuidString.lowercased() }

    static func challengeJSON(_ type: String, options: String) -> String {
        #"""
        {"id":"9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a","type":"webauthn","expires_at":1800000300,
        "webauthn":{"type":"\#(type)","credential_options":{"publicKey":\#(options)}}}
        """#
    }

    /// What the controller was handed, recorded as the sheet appears; then `answer`.
    static func answering(_ answer: any ASAuthorizationCredential, into seen: Locked<[ASAuthorizationRequest]>) {
        StandIn.authorizationBehaviour = { controller, _ in
            seen.withLock { $0 = controller.authorizationRequests }
            controller.finish(.success(answer))
        }
    }

    @Test func aSecurityKeyAnswersAVerifiedWebAuthnFactor() async throws {
        let transport = MockTransport()
        let options =
            #"{"challenge":"AQIDBA","rpId":"example.com","allowCredentials":[{"type":"public-key","id":"CQgHBg"}],"userVerification":"preferred"}"#
        await transport.respond(to: "POST", path: Self.factorPath + "/challenge", json: Self.challengeJSON("request", options: options))
        await transport.respond(to: "POST", path: Self.factorPath + "/verify", json: DemoModelTests.session)
        let auth = try await DemoModelTests.signedIn(transport)
        let seen = Locked<[ASAuthorizationRequest]>([])
        Self.answering(
            ASAuthorizationSecurityKeyPublicKeyCredentialAssertion(
                credentialID: Self.keyID, clientDataJSON: Data("{}".utf8), authenticatorData: Data([1]), signature: Data([2]), userID: nil),
            into: seen)
        let factor = Factor(
            id: Self.factorID, friendlyName: "YubiKey", factorType: .webauthn, status: .verified, createdAt: Date(), updatedAt: Date())
        let pending = try await auth.mfa.begin(factor)
        #expect(!pending.takesCode && pending.webAuthnCeremony?.allowedCredentialIDs == [Self.keyID])
        try await auth.mfa.verifyWithSecurityKey(pending, presentationContextProvider: Anchors())

        let requests = seen.withLock { $0 }
        let key = try #require(requests.first as? ASAuthorizationSecurityKeyPublicKeyCredentialAssertionRequest)
        #expect(key.relyingPartyIdentifier == "example.com" && key.challenge == Data([1, 2, 3, 4]))
        #expect(key.allowedCredentials.map(\.credentialID) == [Self.keyID] && key.userVerificationPreference == .preferred)
        let platform = try #require(requests.last as? ASAuthorizationPlatformPublicKeyCredentialAssertionRequest)
        #expect(requests.count == 2 && platform.allowedCredentials.map(\.credentialID) == [Self.keyID])
        let verify = try #require(await transport.requests.last)
        #expect(verify.path == Self.factorPath + "/verify")
        let webauthn = try #require(verify.json?["webauthn"]?.objectValue)
        #expect(webauthn["type"] == "request" && webauthn["credential_response"]?.objectValue?["rawId"] == "CQgHBg")
        #expect(webauthn["credential_response"]?.objectValue?["response"]?.objectValue?["signature"] == "Ag")
    }

    @Test func enrollingASecurityKeyRegistersItsNewCredential() async throws {
        let transport = MockTransport()
        await transport.respond(
            to: "POST", path: "/factors",
            json: #"{"id":"3a7c6f0e-2b1d-4e5f-8a9b-0c1d2e3f4a5b","type":"webauthn","friendly_name":"YubiKey"}"#)
        let options = #"""
            {"challenge":"AQIDBA","rp":{"id":"example.com","name":"Example"},"user":{"id":"dXNlcg","name":"ada@example.com",
            "displayName":"ada@example.com"},"excludeCredentials":[{"type":"public-key","id":"BQQ"}],
            "authenticatorSelection":{"residentKey":"discouraged","userVerification":"required"},"attestation":"none"}
            """#
        await transport.respond(to: "POST", path: Self.factorPath + "/challenge", json: Self.challengeJSON("create", options: options))
        await transport.respond(to: "POST", path: Self.factorPath + "/verify", json: DemoModelTests.session)
        let auth = try await DemoModelTests.signedIn(transport)
        let seen = Locked<[ASAuthorizationRequest]>([])
        Self.answering(
            ASAuthorizationSecurityKeyPublicKeyCredentialRegistration(
                credentialID: Self.keyID, clientDataJSON: Data("{}".utf8), attestationObject: Data([0xA0])),
            into: seen)
        try await auth.mfa.enrollSecurityKey(friendlyName: "YubiKey", presentationContextProvider: Anchors())

        let request = try #require(seen.withLock { $0 }.first as? ASAuthorizationSecurityKeyPublicKeyCredentialRegistrationRequest)
        #expect(request.relyingPartyIdentifier == "example.com" && request.userID == Data("user".utf8) && request.name == "ada@example.com")
        #expect(request.residentKeyPreference == .discouraged && request.attestationPreference == .none)
        #expect(request.credentialParameters.map(\.algorithm) == [.ES256] && request.userVerificationPreference == .required)
        #expect(request.excludedCredentials.map(\.credentialID) == [Data([5, 4])])
        let calls = await transport.requests
        #expect(calls.map(\.path) == ["/factors", Self.factorPath + "/challenge", Self.factorPath + "/verify"])
        #expect(calls[0].json == ["factor_type": "webauthn", "friendly_name": "YubiKey"])
        let webauthn = try #require(calls[2].json?["webauthn"]?.objectValue)
        #expect(
            webauthn["type"] == "create"
                && webauthn["credential_response"]?.objectValue?["response"]?.objectValue?["attestationObject"] == "oA")
    }
}
