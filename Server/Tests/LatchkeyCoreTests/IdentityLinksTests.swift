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
            let principal = Principal(
                claims: AccessTokenClaims(sub: owner.id.uuidString), user: try #require(try await store.user(id: owner.id)),
                session: nil, isAdmin: false)
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
}
