import Foundation
import LatchkeyTesting
import Testing

@testable import Latchkey

/// Issue #37, its first step: the device remembers who signed in here and which ways in it holds,
/// locally, for a returning-user screen.
@Suite struct ReturningUserTests {
    static let passkey =
        #"{"id":"0b9d0c1e-2f3a-4b5c-8d6e-7f8091a2b3c4","friendly_name":"iCloud Keychain","created_at":"2026-11-26T10:00:00Z"}"#

    @Test func aSignInIsRememberedWithWhatThisDeviceHoldsUntilAGlobalSignOut() async throws {
        let transport = MockTransport()
        await transport.respond(to: "POST", path: "/token", json: Fixtures.sessionJSON())
        await transport.respond(to: "POST", path: "/passkeys/registration/verify", json: Self.passkey)
        await transport.respond(to: "POST", path: "/logout", status: 204, json: "")
        let auth = try await Fixtures.client(transport: transport)
        #expect(await auth.returningUser() == nil)

        try await auth.signIn(email: "ada@example.com", password: "pw")
        let hint = try #require(await auth.returningUser())
        #expect(hint.userID.uuidString.lowercased() == Fixtures.userID && hint.email == "ada@example.com")
        #expect(hint.maskedAddress == "a***@example.com" && !hint.passkeyRegisteredHere && !hint.deviceKeyEnrolledHere)

        let credential = PasskeyCredential.registration(
            credentialID: Data([9]), clientDataJSON: Data("{}".utf8), attestationObject: Data([0xa0]), transports: ["internal"])
        _ = try await auth.registerPasskey(challengeID: UUID(), credential: credential)
        #expect(await auth.returningUser()?.passkeyRegisteredHere == true)

        // A local sign-out keeps the greeting (and what the device holds); a global one forgets it.
        try await auth.signOut(scope: .local)
        #expect(await auth.returningUser()?.passkeyRegisteredHere == true)
        try await auth.signIn(email: "ada@example.com", password: "pw")
        #expect(await auth.returningUser()?.passkeyRegisteredHere == true)
        try await auth.signOut(scope: .global)
        #expect(await auth.returningUser() == nil)
        // Nothing of it went to the server.
        #expect(await transport.requests.allSatisfy { String(decoding: $0.body ?? Data(), as: UTF8.self).contains("a***") == false })
    }

    @Test func anotherUserReplacesItAndAnAnonymousOneIsNotRemembered() async throws {
        let transport = MockTransport()
        let other = Fixtures.sessionJSON().replacingOccurrences(of: Fixtures.userID, with: "11111111-2222-3333-4444-555555555555")
            .replacingOccurrences(of: "ada@example.com", with: "grace@example.com")
        let anonymous = Fixtures.sessionJSON().replacingOccurrences(of: #""is_anonymous":false"#, with: #""is_anonymous":true"#)
            .replacingOccurrences(of: "ada@example.com", with: "")
        await transport.respond(
            to: "POST", path: "/token", MockTransport.Reply(status: 200, body: Data(Fixtures.sessionJSON().utf8)),
            MockTransport.Reply(status: 200, body: Data(other.utf8)))
        await transport.respond(to: "POST", path: "/signup", json: anonymous)
        let auth = try await Fixtures.client(transport: transport)
        try await auth.signIn(email: "ada@example.com", password: "pw")
        try await auth.signIn(email: "grace@example.com", password: "pw")
        #expect(await auth.returningUser()?.maskedAddress == "g***@example.com")
        _ = try await auth.signInAnonymously()
        #expect(await auth.returningUser()?.email == "grace@example.com")

        #expect(ReturningUser.mask(phone: "+15551234567") == "+*******4567")
        #expect(ReturningUser.mask(email: "@example.com") == "***" && ReturningUser.mask(phone: "12") == "***")
    }
}
