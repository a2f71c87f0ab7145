import Foundation
import LatchkeyTesting
import Testing

@testable import Latchkey

/// The SwiftUI code sign-in model and AuthModel's halfway phases (issue #36, "SwiftUI first").
@MainActor @Suite struct CodeSignInModelTests {
    static let sent = #"{"message_id":"m1","code_length":6,"expires_in":600,"resend_after":60,"max_attempts":5}"#

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func sendAWrongCodeTheRightOneWithTheCooldownBetween() async throws {
        let transport = MockTransport()
        await transport.respond(to: "POST", path: "/otp", json: Self.sent)
        await transport.respond(
            to: "POST", path: "/verify",
            MockTransport.Reply(
                status: 403, headers: ["Content-Type": "application/json", "X-Supabase-Api-Version": "2024-01-01"],
                body: Data(
                    #"{"code":"otp_expired","message":"Token has expired or is invalid","reason":"invalid","attempts_remaining":4}"#.utf8)),
            MockTransport.Reply(status: 200, body: Data(Fixtures.sessionJSON().utf8)))
        let auth = try await Fixtures.client(transport: transport)
        let codes = CodeSignInModel(client: auth)
        #expect(codes.step == .address && codes.pending == nil && !codes.canResend())

        await codes.send(to: "ada@example.com")
        let pending = try #require(codes.pending)
        #expect(pending.codeLength == 6 && codes.error == nil && !codes.isWorking)
        #expect(!codes.canResend(at: Date()) && codes.canResend(at: pending.resendAvailableAt))

        await codes.submit("000000")
        #expect(codes.error?.isInvalidCode == true)
        #expect(codes.pending?.attemptsRemaining == 4)

        await codes.submit("123456")
        guard case .signedIn(let session) = codes.step else { Issue.record("not signed in: \(codes.step)"); return }
        #expect(session.accessToken == "access-1" && codes.error == nil)

        // A state kept across a relaunch is picked up by a new model and submits through its client.
        let saved = try JSONDecoder().decode(CodeRequired.self, from: try JSONEncoder().encode(pending))
        let relaunched = CodeSignInModel(client: auth)
        relaunched.resume(saved)
        #expect(relaunched.pending == pending)
        relaunched.startOver()
        #expect(relaunched.step == .address)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aSessionWithAnUnusedFactorOrFromAResetIsHalfway() async throws {
        let auth = try await Fixtures.client()
        let model = AuthModel(client: auth)
        // aal1 with a verified factor: a second factor is needed.
        let verified = [MFATests.factorJSON(status: "verified")]
        let halfway = try MFATests.session(access: try MFATests.aal1Token(), factors: verified)
        model.apply(AuthStateChange(event: .signedIn, session: halfway))
        #expect(model.phase == .needsSecondFactor(halfway) && !model.isSignedIn && model.user != nil)
        let full = try MFATests.session(access: try MFATests.aal2Token(), factors: verified)
        model.apply(AuthStateChange(event: .mfaChallengeVerified, session: full))
        #expect(model.phase == .signedIn(full) && model.isSignedIn)

        let recovering = try Fixtures.session()
        model.apply(AuthStateChange(event: .passwordRecovery, session: recovering))
        #expect(model.phase == .recoveringPassword(recovering))
        model.apply(AuthStateChange(event: .tokenRefreshed, session: recovering))
        #expect(model.phase == .recoveringPassword(recovering))
        model.apply(AuthStateChange(event: .userUpdated, session: recovering))
        #expect(model.phase == .signedIn(recovering))
    }
}
