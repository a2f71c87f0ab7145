import Foundation
import LatchkeyAPI
import Testing

@testable import LatchkeyCore

/// Manual linking's unlink: never the last identity, only the user's own, off unless enabled,
/// and decided again when another unlink lands first.
@Suite struct IdentityLinksTests {
    struct Fixture {
        let oauth = OAuthRedirectsTests.Fixture()
        var store: InMemoryStore { oauth.base.store }

        func links(enabled: Bool = true) -> IdentityLinks {
            IdentityLinks(store: store, flows: oauth.flows, enabled: enabled, records: oauth.base.signIn.records)
        }

        /// A user with an email identity and a Google one.
        func user() async throws -> (Principal, email: IdentityRecord, google: IdentityRecord) {
            let owner = oauth.base.owner("ada@example.com", confirmed: true)
            let now = oauth.base.time.now()
            let email = IdentityRecord(
                id: UUID(), userID: owner.id, provider: "email", providerID: owner.id.uuidString, identityData: [:],
                email: "ada@example.com", createdAt: now, updatedAt: now)
            store.add(email)
            _ = try await oauth.base.attempt(oauth.base.claims())
            let identities = try await store.identities(userID: owner.id)
            let google = try #require(identities.first { $0.provider == "google" })
            let principal = oauth.base.principal(try #require(try await store.user(id: owner.id)))
            return (principal, email, google)
        }
    }

    @Test func anIdentityIsUnlinkedButNeverTheLast() async throws {
        let f = Fixture()
        let (principal, email, google) = try await f.user()
        await #expect(throws: IdentityLinks.disabled) {
            try await f.links(enabled: false).unlink(google.id.uuidString, principal: principal, client: OAuthRedirectsTests.client)
        }
        await #expect(throws: AuthError(.identityNotFound, "Identity doesn't exist")) {
            try await f.links().unlink(UUID().uuidString, principal: principal, client: OAuthRedirectsTests.client)
        }
        try await f.links().unlink(google.id.uuidString, principal: principal, client: OAuthRedirectsTests.client)
        let user = try #require(try await f.store.user(id: principal.user.id))
        #expect(user.appMetadata["providers"] == ["email"] && user.appMetadata["provider"] == "email" && user.email == "ada@example.com")
        #expect(try await f.store.identities(userID: user.id).map(\.id) == [email.id])
        #expect(try await f.oauth.base.actions().last == .identityUnlinked)
        #expect(f.store.outbox.last?.message?.subject == "identityUnlinked")
        await #expect(throws: AuthError(.singleIdentityNotDeletable, "User must have at least 1 identity after unlinking")) {
            try await f.links().unlink(email.id.uuidString, principal: principal, client: OAuthRedirectsTests.client)
        }
    }

    /// Two unlinks of a user's two identities at once: one wins, the other finds the last left.
    @Test func racingUnlinksLeaveOneIdentity() async throws {
        let f = Fixture()
        let (principal, email, google) = try await f.user()
        let links = f.links()
        let succeeded = await withTaskGroup(of: Bool.self) { group in
            for identity in [email, google] {
                group.addTask {
                    (try? await links.unlink(identity.id.uuidString, principal: principal, client: OAuthRedirectsTests.client)) != nil
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(succeeded == 1)
        #expect(try await f.store.identities(userID: principal.user.id).count == 1)
    }

    /// Unlinking at `aal1` with a verified factor is refused; the user's own sign-out landing
    /// first is `session_not_found`; a start of linking at `aal1` too.
    @Test func unlinkingAndLinkingNeedTheSecondFactor() async throws {
        let f = Fixture()
        let (principal, _, google) = try await f.user()
        f.store.add(
            FactorRecord(
                id: UUID(), userID: principal.user.id, friendlyName: nil, factorType: "totp", status: .verified, sealedSecret: "x",
                createdAt: f.oauth.base.time.now(), updatedAt: f.oauth.base.time.now()))
        let aal1 = f.oauth.base.principal(principal.user)
        await #expect(throws: SecondFactorGate.refusal(to: "unlink an identity")) {
            try await f.links().unlink(google.id.uuidString, principal: aal1, client: OAuthRedirectsTests.client)
        }
        await #expect(throws: SecondFactorGate.refusal(to: "link an identity")) {
            try await f.links().authorize(provider: "google", redirectTo: nil, scopes: nil, principal: aal1)
        }
        let aal2 = f.oauth.base.principal(principal.user, aal: "aal2")
        let url = try await f.links().authorize(provider: "google", redirectTo: nil, scopes: nil, principal: aal2)
        #expect(url.contains("/user/identities/continue?ticket="))
        f.store.removeSession(id: try #require(aal2.session?.id))
        await #expect(throws: AuthError.sessionNotFound) {
            try await f.links().unlink(google.id.uuidString, principal: aal2, client: OAuthRedirectsTests.client)
        }
        #expect(try await f.store.identities(userID: principal.user.id).count == 2)
    }
}
