import Foundation
import Latchkey
import LatchkeyAPI
import LatchkeyCore
import LatchkeyServer
import Testing

/// The SDK's `mfa` namespace against a live server: enrol, the aal2 upgrade, a second sign-in
/// that steps up, and the typed errors.
@Suite struct SDKMFATests {
    static let password = "correct horse battery staple"

    @Test func enrolVerifyAndStepUpOnTheNextSignIn() async throws {
        try await LiveServer.run { server in
            let auth = server.client()
            _ = try await auth.signUp(email: "mfa@example.com", password: Self.password)
            try await auth.verifyEmail(email: "mfa@example.com", code: try await server.latestCode("mfa@example.com"))
            #expect(try await auth.mfa.assuranceLevel().next == .aal1)

            let enrollment = try await auth.mfa.enroll(friendlyName: "Ada's phone")
            let totp = TOTP(secret: try #require(Base32.decode(enrollment.totp.secret)))
            #expect(try await auth.mfa.listFactors().all.map(\.status) == ["unverified"])
            var events = auth.authStateChanges.makeAsyncIterator()
            _ = await events.next()
            let session = try await auth.mfa.challengeAndVerify(factorID: enrollment.id, code: totp.code(step: totp.step(at: Date())))
            #expect(await events.next()?.event == .mfaChallengeVerified)
            // The first factor's answer carries recovery codes, shown once and never stored.
            #expect(session.recoveryCodes?.count == 10)
            var kept = session
            kept.recoveryCodes = nil
            #expect(await auth.currentSession == kept)
            let level = try await auth.mfa.assuranceLevel()
            #expect(level.current == .aal2 && level.next == .aal2)
            #expect(level.currentAuthenticationMethods.map(\.method).last == "totp")
            #expect(try await auth.mfa.listFactors().totp.map(\.id) == [enrollment.id])
            // The upgraded session refreshes and stays aal2.
            try await auth.refreshSession()
            #expect(try await auth.mfa.assuranceLevel().current == .aal2)

            // Another device signs in with the password: aal1, and told a second step is due.
            let other = server.client()
            try await other.signIn(email: "mfa@example.com", password: Self.password)
            let pending = try await other.mfa.assuranceLevel()
            #expect(pending.current == .aal1 && pending.next == .aal2)
            await #expect { try await other.updatePassword("another long passphrase 7") } throws: {
                ($0 as? LatchkeyError)?.isInsufficientAAL == true
            }
            let challenge = try await other.mfa.challenge(factorID: enrollment.id)
            await #expect {
                try await other.mfa.verify(factorID: enrollment.id, challengeID: challenge.id, code: "12345x")
            } throws: { ($0 as? LatchkeyError)?.isMFAVerificationFailed == true }
            let next = totp.code(step: totp.step(at: Date()) + 1)
            try await other.mfa.verify(factorID: enrollment.id, challengeID: challenge.id, code: next)
            #expect(try await other.mfa.assuranceLevel().current == .aal2)
            try await other.updatePassword("another long passphrase 7")

            // At aal2 the factor can be removed; afterwards a sign-in needs no second step.
            _ = try await other.mfa.unenroll(factorID: enrollment.id)
            // The server lowered the session and the SDK refreshed to learn it.
            #expect(try await other.mfa.assuranceLevel().current == .aal1)
            #expect(try await other.mfa.listFactors().all.isEmpty)
            await #expect { try await other.mfa.challenge(factorID: enrollment.id) } throws: {
                ($0 as? LatchkeyError)?.isMFAFactorNotFound == true
            }
            let third = server.client()
            try await third.signIn(email: "mfa@example.com", password: "another long passphrase 7")
            #expect(try await third.mfa.assuranceLevel().next == .aal1)
        }
    }
}
