import Foundation
import LatchkeyAPI
import Synchronization
import Testing

@testable import LatchkeyCore

/// The OAuth server's clients (#40, step 1) against the in-memory store: GoTrue's registration
/// rules (types and auth methods, grant types, redirect URIs refused as a browser would misuse
/// them), the secret shown once and kept as a hash, updates on a precondition, the switches.
@Suite struct OAuthClientsTests {
    struct Fixture {
        let store = InMemoryStore()
        let time = ManualTimeSource()
        let clients: OAuthClients

        init(
            settings: OAuthClients.Settings = .init(
                enabled: true, dynamicRegistration: true, registrationsPerIP: .init(count: 2, period: 3600))
        ) {
            clients = OAuthClients(
                store: store, limiter: RateLimiter(store: store, time: time), settings: settings, time: time,
                random: SeededRandomSource(seed: 40))
        }

        func error(_ work: () async throws -> some Any) async -> AuthError? { await thrownAuthError(work) }
    }

    static let app = OAuthClientRequest(redirectURIs: ["https://app.example.com/callback"], clientName: "Example")

    @Test func aConfidentialClientsSecretIsShownOnceAndKeptAsAHash() async throws {
        let f = Fixture()
        let made = try await f.clients.register(Self.app, dynamic: false)
        #expect(made.clientType == "confidential" && made.tokenEndpointAuthMethod == "client_secret_basic")
        #expect(made.grantTypes == ["authorization_code", "refresh_token"] && made.responseTypes == ["code"])
        #expect(made.registrationType == "manual")
        let secret = try #require(made.clientSecret)
        #expect(Base64URL.decode(secret)?.count == 32)
        let stored = try #require(try await f.store.oauthClient(id: made.clientID))
        #expect(stored.secretHash != nil && stored.secretHash != secret && OAuthClients.secretMatches(secret, stored))
        #expect(!OAuthClients.secretMatches(secret + "x", stored))
        #expect(try await f.clients.get(made.clientID.uuidString).clientSecret == nil)

        let renewed = try await f.clients.regenerateSecret(made.clientID.uuidString)
        let fresh = try #require(try await f.store.oauthClient(id: made.clientID))
        #expect(renewed.clientSecret != secret && !OAuthClients.secretMatches(secret, fresh))
        #expect(OAuthClients.secretMatches(try #require(renewed.clientSecret), fresh))
    }

    @Test(
        arguments: [
            (nil, "none", "public", "none"), ("public", nil, "public", "none"),
            (nil, "client_secret_post", "confidential", "client_secret_post"),
            ("confidential", nil, "confidential", "client_secret_basic"),
        ] as [(String?, String?, String, String)])
    func theTypeFollowsTheAuthMethodAsGoTrue(_ type: String?, _ method: String?, _ expectedType: String, _ expectedMethod: String)
        async throws
    {
        let f = Fixture()
        var request = Self.app
        request.clientType = type
        request.tokenEndpointAuthMethod = method
        let made = try await f.clients.register(request, dynamic: false)
        #expect(made.clientType == expectedType && made.tokenEndpointAuthMethod == expectedMethod)
        #expect((made.clientSecret != nil) == (expectedType == "confidential"))
        if expectedType == "public" {
            #expect(await f.error { try await f.clients.regenerateSecret(made.clientID.uuidString) }?.code == .validationFailed)
        }
    }

    @Test(arguments: [
        "javascript:alert(1)//x", "data:text/html,hi", "file:///etc/passwd", "vbscript:x", "blob:https://a.example/x",
        "http://app.example.com/cb", "https://app.example.com/cb#frag", "/relative/path", "https:///nohost", "",
        "https://user:pw@app.example.com/cb", "https://app.example.com/c b", "https://app.example.com\\@evil.example/cb",
        "https://app.example.com/\u{0000}", String(repeating: "a", count: 2100),
    ])
    func hostileRedirectURIsAreRefused(_ uri: String) async throws {
        let f = Fixture()
        let error = await f.error { try await f.clients.register(OAuthClientRequest(redirectURIs: [uri]), dynamic: false) }
        #expect(error?.code == .validationFailed, "\(uri)")
        #expect(try await f.store.oauthClients().isEmpty)
    }

    @Test func loopbackHTTPAndAppSchemesAreAccepted() async throws {
        let f = Fixture()
        let uris = [
            "http://localhost:8080/cb", "http://127.0.0.1/cb", "http://[::1]:3000/cb", "myapp://auth/callback", "https://a.example/cb?x=1",
        ]
        let made = try await f.clients.register(OAuthClientRequest(redirectURIs: uris), dynamic: false)
        #expect(made.redirectURIs == uris)
    }

    @Test func badMetadataIsRefused() async {
        let f = Fixture()
        let table: [OAuthClientRequest] = [
            OAuthClientRequest(),
            OAuthClientRequest(redirectURIs: []),
            OAuthClientRequest(redirectURIs: Array(repeating: "https://a.example/cb", count: 11)),
            OAuthClientRequest(redirectURIs: ["https://a.example/cb"], grantTypes: ["client_credentials"]),
            OAuthClientRequest(redirectURIs: ["https://a.example/cb"], grantTypes: []),
            OAuthClientRequest(
                redirectURIs: ["https://a.example/cb"], clientType: "public", tokenEndpointAuthMethod: "client_secret_basic"),
            OAuthClientRequest(redirectURIs: ["https://a.example/cb"], clientType: "confidential", tokenEndpointAuthMethod: "none"),
            OAuthClientRequest(redirectURIs: ["https://a.example/cb"], clientType: "trusted"),
            OAuthClientRequest(redirectURIs: ["https://a.example/cb"], tokenEndpointAuthMethod: "private_key_jwt"),
            OAuthClientRequest(redirectURIs: ["https://a.example/cb"], clientName: String(repeating: "n", count: 1025)),
            OAuthClientRequest(redirectURIs: ["https://a.example/cb"], clientURI: "javascript:alert(1)"),
            OAuthClientRequest(redirectURIs: ["https://a.example/cb"], logoURI: "not a url"),
        ]
        for request in table {
            #expect(await f.error { try await f.clients.register(request, dynamic: false) }?.code == .validationFailed, "\(request)")
        }
    }

    @Test func updatesChangeWhatIsGivenOnAPreconditionAndDeletedClientsAreGone() async throws {
        let f = Fixture()
        let made = try await f.clients.register(Self.app, dynamic: false)
        let id = made.clientID.uuidString
        #expect(await f.error { try await f.clients.update(id, OAuthClientRequest()) }?.message == "No fields provided for update")
        #expect(await f.error { try await f.clients.update(id, OAuthClientRequest(clientType: "public")) }?.code == .validationFailed)
        #expect(
            await f.error { try await f.clients.update(id, OAuthClientRequest(tokenEndpointAuthMethod: "none")) }?.code == .validationFailed
        )
        f.time.advance(by: 1)
        let updated = try await f.clients.update(id, OAuthClientRequest(redirectURIs: ["https://b.example/cb"], clientName: ""))
        #expect(updated.redirectURIs == ["https://b.example/cb"] && updated.clientName == nil && updated.updatedAt > made.updatedAt)
        // A write decided on an older read changes nothing.
        var stale = try #require(try await f.store.oauthClient(id: made.clientID))
        stale.name = "stale"
        #expect(try await f.store.updateOAuthClient(stale, ifUpdatedAt: made.updatedAt, audit: []) == false)

        try await f.clients.delete(id)
        // Each change is audited, the update by the names of its fields.
        let events = f.store.state.withLock { $0.events }.filter { $0.details["client_id"] == .string(id.lowercased()) }
        #expect(events.map(\.action) == [.oauthClientCreated, .oauthClientUpdated, .oauthClientDeleted])
        #expect(events.first { $0.action == .oauthClientUpdated }?.details["fields"] == ["redirect_uris", "client_name"])
        #expect(await f.error { try await f.clients.get(id) }?.code == .oauthClientNotFound)
        #expect(await f.error { try await f.clients.delete(id) }?.code == .oauthClientNotFound)
        #expect(await f.error { try await f.clients.regenerateSecret(id) }?.code == .oauthClientNotFound)
        #expect(try await f.clients.list().clients.isEmpty)
        #expect(await f.error { try await f.clients.get("not-a-uuid") }?.code == .validationFailed)
    }

    @Test func theSwitchesAndTheRegistrationLimit() async throws {
        let off = Fixture(settings: .init())
        let disabled = await off.error { try await off.clients.list() }
        #expect(disabled?.code == .featureDisabled && disabled?.status == 404)
        let closed = Fixture(settings: .init(enabled: true))
        let refused = await closed.error { try await closed.clients.register(Self.app, dynamic: true, client: ClientInfo(ip: "192.0.2.7")) }
        #expect(refused?.code == .oauthDynamicClientRegistrationDisabled && refused?.status == 403)
        let f = Fixture()
        let client = ClientInfo(ip: "192.0.2.7")
        for _ in 0..<2 { #expect(try await f.clients.register(Self.app, dynamic: true, client: client).registrationType == "dynamic") }
        #expect(await f.error { try await f.clients.register(Self.app, dynamic: true, client: client) }?.code == .overRequestRateLimit)
        // An operator's registrations are not limited.
        _ = try await f.clients.register(Self.app, dynamic: false)
        #expect(try await f.clients.list().clients.count == 3)
    }
}
