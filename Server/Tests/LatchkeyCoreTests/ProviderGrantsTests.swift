import Foundation
import LatchkeyAPI
import Logging
import Synchronization
import Testing

@testable import LatchkeyCore

/// Apple's refresh tokens: kept sealed from the app's code or the web flow's exchange, and
/// revoked with the account (issue #36).
@Suite struct ProviderGrantsTests {
    static let apple = IdentityProvider(
        name: "apple", enabled: true, issuers: .exact(IdentityProvider.appleIssuers), claims: .apple,
        clientIDs: ["com.example.web", "com.example.app"],
        oauth: OAuthClientSettings(
            secret: .fixed("secret"), redirectURI: "https://auth.example.com/callback", scopes: ["name", "email"], formPost: true,
            pkce: false))

    struct Fixture {
        let memory = InMemoryStore()
        let client = InMemoryOAuthProviderClient()
        let grants: ProviderGrants
        let user: UserRecord

        init() {
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            user = UserRecord(
                id: UUID(), aud: "authenticated", role: "authenticated", email: "ada@example.com", passwordHash: nil, appMetadata: [:],
                userMetadata: [:], createdAt: now, updatedAt: now)
            memory.add(user)
            grants = ProviderGrants(
                store: memory, client: client, serverSecret: Array(repeating: 7, count: 32),
                lookup: { name in name == "apple" ? ProviderGrantsTests.apple : nil }, time: ManualTimeSource(now),
                logger: Logger(label: "test"))
        }
    }

    @Test func theAppsCodeIsExchangedSealedAndRevokedWithTheAccount() async throws {
        let f = Fixture()
        f.client.approve("code-1", tokens: ProviderTokens(accessToken: "a", refreshToken: "apple-refresh-1"))
        await f.grants.keep(code: "code-1", clientID: "com.example.app", userID: f.user.id, subject: "001.a", provider: Self.apple)
        #expect(f.client.nativeClients.withLock { $0 } == ["com.example.app"])
        let held = await f.grants.held(by: f.user.id)
        #expect(held.count == 1 && held.first?.clientID == "com.example.app")
        #expect(held.first?.sealedRefreshToken.contains("apple-refresh-1") == false)
        await f.grants.revoke(held)
        #expect(f.client.revoked.withLock { $0.map { [$0.token, $0.clientID] } } == [["apple-refresh-1", "com.example.app"]])
    }

    @Test func otherProvidersRefusedCodesAndDamagedGrantsKeepAndRevokeNothing() async throws {
        let f = Fixture()
        let google = IdentityProvider(
            name: "google", enabled: true, issuers: .exact([IdentityProvider.googleIssuer]), claims: .google, clientIDs: ["g"],
            oauth: Self.apple.oauth)
        f.client.approve("code-g", tokens: ProviderTokens(accessToken: "a", refreshToken: "google-refresh"))
        await f.grants.keep(code: "code-g", clientID: "g", userID: f.user.id, subject: "g-1", provider: google)
        await f.grants.keep(code: "unknown", clientID: "com.example.app", userID: f.user.id, subject: "001.a", provider: Self.apple)
        await f.grants.keep(
            code: String(repeating: "c", count: 2000), clientID: "com.example.app", userID: f.user.id, subject: "001.a",
            provider: Self.apple)
        #expect(await f.grants.held(by: f.user.id).isEmpty)
        // A grant moved to another user (or sealed under another secret) does not open: not revoked.
        f.client.approve("code-2", tokens: ProviderTokens(accessToken: "a", refreshToken: "apple-refresh-2"))
        await f.grants.keep(code: "code-2", clientID: "com.example.app", userID: f.user.id, subject: "001.a", provider: Self.apple)
        var moved = try #require(await f.grants.held(by: f.user.id).first)
        moved.userID = UUID()
        await f.grants.revoke([moved])
        #expect(f.client.revoked.withLock { $0.isEmpty })
    }
}
