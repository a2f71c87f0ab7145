import Foundation
import LatchkeyAPI
import Synchronization
import Testing

@testable import LatchkeyCore

/// #39: the verification of a user's first factor answers ten recovery codes, once, stored by the
/// same write; a later factor's does not, nor does a first factor while codes from before are left.
@Suite struct FirstFactorRecoveryCodeTests {
    typealias Fixture = PhoneFactorTests.Fixture

    @Test func theFirstFactorsVerificationAnswersASetOnce() async throws {
        let f = Fixture()
        let first = try await f.enroll("+44 7700 900123")
        let (challenge, code) = try await f.challenge(first.id)
        let answer = try await f.verify(first.id, challenge, code)
        let codes = try #require(answer.recoveryCodes)
        #expect(codes.count == 10 && Set(codes).count == 10)
        #expect(codes.allSatisfy { $0.wholeMatch(of: /[a-hjkmnp-z2-9]{5}-[a-hjkmnp-z2-9]{5}/) != nil })
        #expect(try await f.mfa.recoveryCodeStatus(principal: f.principal) == RecoveryCodeStatus(remaining: 10, total: 10))
        let events = f.store.state.withLock { $0.events }
        #expect(events.contains { $0.details["type"] == "recovery_codes" })

        // Each works once, as codes made on request do.
        let signIn = RecoveryCodeTests.newSignIn(f)
        _ = try await f.mfa.verifyRecoveryCode(VerifyRecoveryCodeRequest(code: codes[0]), principal: signIn, client: Fixture.client)

        // A second factor, verified at aal2, comes with none; the set stays.
        f.time.advance(by: 61)
        let second = try await f.enroll("+44 7700 900456")
        let (next, nextCode) = try await f.challenge(second.id)
        #expect(try await f.verify(second.id, next, nextCode).recoveryCodes == nil)
        #expect(try await f.mfa.recoveryCodeStatus(principal: f.principal).remaining == 9)
    }

    @Test func aFirstFactorWhileCodesAreLeftAnswersNone() async throws {
        let f = try await RecoveryCodeTests.withVerifiedFactor()
        let kept = f.store.state.withLock { $0.recoveryCodes }
        #expect(kept.count == 10)
        // The factor goes (the codes stay), and a new first factor is verified.
        let factor = try #require(f.store.state.withLock { $0.factors.values.first })
        _ = try await f.mfa.unenroll(id: factor.id.uuidString, principal: f.principal)
        f.time.advance(by: 61)
        let again = try await f.enroll("+44 7700 900789")
        let (challenge, code) = try await f.challenge(again.id)
        #expect(try await f.verify(again.id, challenge, code).recoveryCodes == nil)
        #expect(f.store.state.withLock { $0.recoveryCodes } == kept)
    }
}
