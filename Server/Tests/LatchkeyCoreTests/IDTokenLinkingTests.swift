import Foundation
import LatchkeyAPI
import Testing

@testable import LatchkeyCore

/// `link_identity`: a signed-in user (an anonymous one above all) links a provider's identity,
/// and an identity or an address that belongs to someone else is refused with nothing stored.
@Suite struct IDTokenLinkingTests {
    typealias Fixture = IDTokenSignInTests.Fixture

    static func anonymous(in f: Fixture) -> Principal {
        let now = f.time.now()
        let user = UserRecord(
            id: UUID(), aud: "authenticated", role: "authenticated", email: nil, passwordHash: nil, appMetadata: [:], userMetadata: [:],
            isAnonymous: true, createdAt: now, updatedAt: now)
        f.store.add(user)
        return f.principal(user)
    }

    func link(_ f: Fixture, _ claims: [String: JSONValue], as principal: Principal?) async throws -> Session {
        let token = f.reader.issue(claims, by: IdentityProvider.googleIssuer)
        return try await f.signIn.signIn(
            IDTokenGrantRequest(provider: "google", idToken: token, linkIdentity: true), principal: principal,
            client: IDTokenSignInTests.client)
    }

    @Test func anAnonymousUserBecomesPermanentWithTheProvidersAddress() async throws {
        let f = Fixture()
        let guest = Self.anonymous(in: f)
        let session = try await link(f, f.claims(), as: guest)
        #expect(session.user.id == guest.user.id && session.user.email == "ada@example.com" && session.user.isAnonymous == false)
        #expect(session.user.emailConfirmedAt != nil && session.user.appMetadata["providers"] == ["google"])
        #expect(session.user.identities?.map(\.provider) == ["google"])
        #expect(try await f.actions() == [.identityLinked])
    }

    @Test func linkedIdentitiesAndTakenAddressesAreRefused() async throws {
        let f = Fixture()
        let owner = try await f.attempt(f.claims())
        let guest = Self.anonymous(in: f)
        await #expect(throws: AuthError(.identityAlreadyExists, "Identity is already linked to another user")) {
            try await link(f, f.claims(), as: guest)
        }
        let principal = f.principal(try #require(try await f.store.user(id: owner.user.id)))
        await #expect(throws: AuthError(.identityAlreadyExists, "Identity is already linked")) {
            try await link(f, f.claims(), as: principal)
        }
        await #expect(throws: AuthError(.emailExists, "A user with this email address has already been registered")) {
            try await link(f, f.claims("g-other"), as: guest)
        }
        await #expect(throws: IDTokenSignIn.needsVerification(IDTokenSignInTests.google)) {
            try await link(f, f.claims("g-other", email: "new@example.com", verified: false), as: guest)
        }
        await #expect(throws: IDTokenSignIn.invalidRequest("Linking requires a valid user access token in Authorization")) {
            try await link(f, f.claims("g-other", email: "new@example.com"), as: nil)
        }
        #expect(try await f.store.user(id: guest.user.id)?.isAnonymous == true)
        #expect(f.store.sessions(userID: guest.user.id).map(\.id) == [guest.session?.id])
    }

    /// A stolen password alone (an `aal1` session of a user with a verified factor) adds no
    /// provider account; the same user at `aal2` does, and is told by email. With manual
    /// linking off, `link_identity` is refused as the redirect form is.
    @Test func linkingNeedsTheSecondFactorAndTheSwitch() async throws {
        let f = Fixture()
        let owner = f.owner("grace@example.com", confirmed: true)
        f.store.add(
            FactorRecord(
                id: UUID(), userID: owner.id, friendlyName: nil, factorType: "totp", status: .verified, sealedSecret: "x",
                createdAt: f.time.now(), updatedAt: f.time.now()))
        await #expect(throws: SecondFactorGate.refusal(to: "link an identity")) {
            try await link(f, f.claims("g-thief", email: "thief@example.com"), as: f.principal(owner))
        }
        #expect(try await f.store.identities(userID: owner.id).isEmpty && f.store.outbox.isEmpty)
        let linked = try await link(f, f.claims("g-grace", email: "grace@example.com"), as: f.principal(owner, aal: "aal2"))
        #expect(linked.user.id == owner.id && linked.user.identities?.map(\.provider) == ["google"])
        #expect(f.store.outbox.map(\.recipient) == ["grace@example.com"])
        #expect(f.store.outbox.first?.message?.subject == "identityLinked")
        let off = Fixture(manualLinking: false)
        let guest = Self.anonymous(in: off)
        await #expect(throws: IdentityLinks.disabled) { try await link(off, off.claims(), as: guest) }
    }

    /// The session the link is asked under must still be there when the link is written: signed
    /// out meanwhile, nothing is linked.
    @Test func aLinkAfterItsSessionEndedStoresNothing() async throws {
        let f = Fixture()
        let guest = Self.anonymous(in: f)
        f.store.removeSession(id: try #require(guest.session?.id))
        await #expect(throws: AuthError.sessionNotFound) { try await link(f, f.claims(), as: guest) }
        #expect(try await f.store.identities(userID: guest.user.id).isEmpty)
    }
}
