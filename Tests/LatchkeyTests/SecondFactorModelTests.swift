import Foundation
import LatchkeyTesting
import Testing

@testable import Latchkey

/// Issue #39: `AuthModel`'s "needs second factor" phase, with the user's factors and a
/// `challenge(factor:)` / `verify(code:)` flow for each type, and recovery codes in their place.
@MainActor @Suite struct SecondFactorModelTests {
    static let totp = UUID(uuidString: "3A7C6F0E-2B1D-4E5F-8A9B-0C1D2E3F4A5B")!
    static let phone = UUID(uuidString: "11111111-2B1D-4E5F-8A9B-0C1D2E3F4A5B")!
    static let key = UUID(uuidString: "22222222-2B1D-4E5F-8A9B-0C1D2E3F4A5B")!
    static let factors = [
        MFATests.factorJSON(id: phone, type: "phone", status: "verified", name: "SMS"),
        MFATests.factorJSON(id: UUID(), status: "unverified", name: "Half-done"),
        MFATests.factorJSON(id: key, type: "webauthn", status: "verified", name: "YubiKey"),
        MFATests.factorJSON(id: totp, status: "verified", name: "App"),
    ]

    static func path(_ id: UUID, _ action: String) -> String { "/factors/\(id.uuidString.lowercased())/\(action)" }

    static func challengeJSON(_ type: String) -> String {
        #"{"id":"9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a","type":"\#(type)","expires_at":1767225960}"#
    }

    /// A model halfway in: signed in at aal1 by a user with verified factors.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    static func halfway(_ transport: MockTransport) async throws -> AuthModel {
        let session = try MFATests.session(access: try MFATests.aal1Token(), factors: factors)
        let auth = try await Fixtures.client(transport: transport, stored: session)
        let model = AuthModel(client: auth)
        model.apply(AuthStateChange(event: .signedIn, session: session))
        return model
    }

    static var aal2: String {
        get throws { MFATests.sessionJSON(access: try MFATests.aal2Token(), refresh: "refresh-aal2", factors: factors) }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func theFactorsAreTheVerifiedOnesAppsFirstAndATypedCodeNeedsNoChallengeFirst() async throws {
        let transport = MockTransport()
        await transport.respond(to: "POST", path: Self.path(Self.totp, "challenge"), json: Self.challengeJSON("totp"))
        await transport.respond(to: "POST", path: Self.path(Self.totp, "verify"), json: try Self.aal2)
        let model = try await Self.halfway(transport)
        #expect(model.secondFactors.map(\.id) == [Self.totp, Self.key, Self.phone])
        #expect(model.secondFactorChallenge == nil)

        try await model.verify(code: "123456")
        #expect(model.isSignedIn && model.secondFactors.isEmpty && model.secondFactorChallenge == nil)
        let requests = await transport.requests
        #expect(requests.map(\.path) == [Self.path(Self.totp, "challenge"), Self.path(Self.totp, "verify")])
        #expect(requests[1].json == ["challenge_id": "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a", "code": "123456"])
        // Signed in, nothing waits for a code.
        await #expect { try await model.verify(code: "123456") } throws: { ($0 as? LatchkeyError)?.isNoSecondFactorPending == true }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aPhoneFactorIsChallengedOverTheChannelThenItsCodeVerifiedAndAWrongOneKeepsItOpen() async throws {
        let transport = MockTransport()
        await transport.respond(to: "POST", path: Self.path(Self.phone, "challenge"), json: Self.challengeJSON("phone"))
        await transport.respond(
            to: "POST", path: Self.path(Self.phone, "verify"),
            .init(
                status: 422, headers: ["Content-Type": "application/json", "X-Supabase-Api-Version": "2024-01-01"],
                body: Data(Fixtures.error("mfa_verification_failed", "Invalid MFA Phone code entered").utf8)),
            .init(status: 200, body: Data(try Self.aal2.utf8)))
        let model = try await Self.halfway(transport)
        let phone = try #require(model.secondFactors.last)
        try await model.challenge(factor: phone, channel: .whatsapp)
        #expect(model.secondFactorChallenge?.factor.id == Self.phone && model.secondFactorChallenge?.takesCode == true)
        await #expect { try await model.verify(code: "000000") } throws: { ($0 as? LatchkeyError)?.isMFAVerificationFailed == true }
        #expect(model.secondFactorChallenge?.factor.id == Self.phone && !model.isSignedIn)
        try await model.verify(code: "424242")
        #expect(model.isSignedIn)
        let requests = await transport.requests
        #expect(requests[0].json == ["channel": "whatsapp"])
        #expect(requests.dropFirst().map(\.path) == [Self.path(Self.phone, "verify"), Self.path(Self.phone, "verify")])
        #expect(requests[2].json?["code"] == "424242")
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aSecurityKeysChallengeCarriesItsCeremonyAndARecoveryCodeStandsInForAnyFactor() async throws {
        let transport = MockTransport()
        let options = #"{"challenge":"AQIDBA","rpId":"example.com","allowCredentials":[{"type":"public-key","id":"CQgHBg"}]}"#
        await transport.respond(
            to: "POST", path: Self.path(Self.key, "challenge"),
            json:
                #"{"id":"9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a","type":"webauthn","expires_at":1767225960,"webauthn":{"type":"request","credential_options":{"publicKey":\#(options)}}}"#
        )
        await transport.respond(to: "POST", path: "/recovery-codes/verify", json: try Self.aal2)
        let model = try await Self.halfway(transport)
        try await model.challenge(factor: try #require(model.secondFactors.first { $0.factorType == .webauthn }))
        let pending = try #require(model.secondFactorChallenge)
        #expect(!pending.takesCode)
        let ceremony = try #require(pending.webAuthnCeremony)
        #expect(ceremony.relyingPartyID == "example.com" && ceremony.challenge == Data([1, 2, 3, 4]))
        #expect(ceremony.allowedCredentialIDs == [Data([9, 8, 7, 6])])

        try await model.verifyRecoveryCode("abcde-fghij")
        #expect(model.isSignedIn && model.secondFactorChallenge == nil)
        #expect(await transport.requests.last?.json == ["code": "abcde-fghij"])
    }
}
