import Foundation
import LatchkeyAPI
import Synchronization
import Testing

@testable import LatchkeyCore

/// Recovery codes (#39, Latchkey's): made at `aal2` with a verified factor, shown once, stored
/// hashed, each good once in place of the factor's code (`aal2`, `amr` `mfa/recovery`), a new set
/// replacing the old, two uses of one code racing to one success, and the owner told.
@Suite struct RecoveryCodeTests {
    typealias Fixture = PhoneFactorTests.Fixture

    /// A fixture whose user has a verified phone factor, signed in at `aal2` in its session.
    static func withVerifiedFactor() async throws -> Fixture {
        let f = Fixture()
        let enrolled = try await f.enroll()
        let (challenge, code) = try await f.challenge(enrolled.id)
        _ = try await f.verify(enrolled.id, challenge, code)
        return f
    }

    /// A second, `aal1` session of the fixture's user (a sign-in on a new device), and its principal.
    static func newSignIn(_ f: Fixture) -> Principal {
        let now = f.time.now()
        let session = SessionRecord(id: UUID(), userID: f.user.id, amr: [], refreshSalt: [3], createdAt: now, updatedAt: now)
        f.store.add(session)
        return Principal(
            claims: AccessTokenClaims(sub: f.user.id.uuidString), user: f.store.state.withLock { $0.users[f.user.id] } ?? f.user,
            session: session, isAdmin: false)
    }

    @Test func codesNeedAVerifiedFactorAndAnAAL2Session() async throws {
        let f = Fixture()
        #expect(await f.error { try await f.mfa.generateRecoveryCodes(principal: f.principal) }?.code == .mfaFactorNotFound)
        let verified = try await Self.withVerifiedFactor()
        #expect(
            await verified.error { try await verified.mfa.generateRecoveryCodes(principal: Self.newSignIn(verified)) }?.code
                == .insufficientAAL)
        let made = try await verified.mfa.generateRecoveryCodes(principal: verified.principal)
        #expect(made.codes.count == 10 && Set(made.codes).count == 10)
        #expect(made.codes.allSatisfy { $0.wholeMatch(of: /[a-hjkmnp-z2-9]{5}-[a-hjkmnp-z2-9]{5}/) != nil })
        // Stored hashed: no code appears in the store.
        let stored = verified.store.state.withLock { $0.recoveryCodes }
        #expect(stored.count == 10 && stored.allSatisfy { code in !made.codes.contains { code.codeHash.contains($0) } })
        #expect(try await verified.mfa.recoveryCodeStatus(principal: verified.principal) == RecoveryCodeStatus(remaining: 10, total: 10))
    }

    @Test func aCodeRaisesANewSignInOnceAndTellsTheOwner() async throws {
        let f = try await Self.withVerifiedFactor()
        let codes = try await f.mfa.generateRecoveryCodes(principal: f.principal).codes
        let signIn = Self.newSignIn(f)
        let outbox = f.store.state.withLock { $0.outbox.count }
        // Typed or pasted as people do: capitals, a typographic hyphen, a tab and a newline.
        let typed = "\t" + codes[3].uppercased().replacingOccurrences(of: "-", with: "\u{2010}") + "\n"
        _ = try await f.mfa.verifyRecoveryCode(VerifyRecoveryCodeRequest(code: typed), principal: signIn, client: Fixture.client)
        let sessionID = try #require(signIn.session?.id)
        let raised = try #require(f.store.session(id: sessionID))
        #expect(raised.aal == "aal2" && raised.amr.map(\.method) == ["mfa/recovery"] && raised.refreshCounter == 2)
        #expect(f.store.state.withLock { $0.outbox.count } == outbox + 1)
        #expect(try await f.mfa.recoveryCodeStatus(principal: f.principal) == RecoveryCodeStatus(remaining: 9, total: 10))
        let again = await f.error {
            try await f.mfa.verifyRecoveryCode(
                VerifyRecoveryCodeRequest(code: codes[3]), principal: Self.newSignIn(f), client: Fixture.client)
        }
        #expect(again?.code == .mfaVerificationFailed)
        let actions = try await f.store.auditEvents(AuditQuery(limit: 50)).events.map(\.action)
        #expect(actions.contains(.codeFailed))
    }

    @Test func aNewSetReplacesTheOldAndWrongCodesAreRefused() async throws {
        let f = try await Self.withVerifiedFactor()
        let old = try await f.mfa.generateRecoveryCodes(principal: f.principal).codes
        let new = try await f.mfa.generateRecoveryCodes(principal: f.principal).codes
        #expect(Set(old).isDisjoint(with: new))
        for code in [old[0], "not-a-code", "aaaaa-aaaaa", String(repeating: "a", count: 64)] {
            let error = await f.error {
                try await f.mfa.verifyRecoveryCode(
                    VerifyRecoveryCodeRequest(code: code), principal: Self.newSignIn(f), client: Fixture.client)
            }
            #expect(error?.code == .mfaVerificationFailed, "\(code)")
        }
        #expect(
            await f.error {
                try await f.mfa.verifyRecoveryCode(VerifyRecoveryCodeRequest(code: ""), principal: f.principal, client: Fixture.client)
            }?.code == .validationFailed)
        _ = try await f.mfa.verifyRecoveryCode(
            VerifyRecoveryCodeRequest(code: new[9]), principal: Self.newSignIn(f), client: Fixture.client)
    }

    /// Two uses of one code at once (two devices, or a replay): one raises its session, the other
    /// is refused, and the code is spent once.
    @Test func twoUsesOfOneCodeRaceToOneSuccess() async throws {
        let f = try await Self.withVerifiedFactor()
        let code = try await f.mfa.generateRecoveryCodes(principal: f.principal).codes[0]
        let signIns = (0..<6).map { _ in Self.newSignIn(f) }
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for signIn in signIns {
                group.addTask {
                    (try? await f.mfa.verifyRecoveryCode(VerifyRecoveryCodeRequest(code: code), principal: signIn, client: Fixture.client))
                        != nil
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 }.count == 1)
        #expect(signIns.compactMap { f.store.session(id: $0.session!.id) }.filter { $0.aal == "aal2" }.count == 1)
        #expect(f.store.state.withLock { $0.recoveryCodes.filter { $0.usedAt != nil }.count } == 1)
    }
}
