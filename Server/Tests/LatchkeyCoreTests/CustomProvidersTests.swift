import Foundation
import LatchkeyAPI
import Logging
import Testing

@testable import LatchkeyCore

/// Custom OpenID providers: GoTrue's admin rules (identifier, required fields, HTTPS issuer), the
/// secret sealed at rest and never shown, and the id-token grant finding them at each request.
@Suite struct CustomProvidersTests {
    struct Fixture {
        let base = IDTokenSignInTests.Fixture()
        let providers: CustomProviders
        let signIn: IDTokenSignIn

        init() {
            providers = CustomProviders(
                store: base.store, serverSecret: Array(repeating: 3, count: 32), externalURL: "https://auth.example/",
                time: base.time, random: SeededRandomSource(seed: 2))
            signIn = IDTokenSignIn(
                store: base.store, tokens: base.reader, limiter: RateLimiter(store: base.store, time: base.time),
                settings: IDTokenSignIn.Settings(providers: [], tokenPerIP: RateLimit(count: 100, period: 300)),
                records: base.signIn.records, logger: Logger(label: "test"), directory: providers)
        }

        static let acme = CustomProviderRequest(
            identifier: "custom:acme", name: "Acme SSO", clientID: "acme-web", clientSecret: "s3cret", acceptableClientIDs: ["acme-ios"],
            issuer: "https://sso.acme.example")
    }

    @Test func providersAreAddedChangedAndRemovedByGoTruesRules() async throws {
        let f = Fixture()
        let made = try await f.providers.create(Fixture.acme)
        #expect(made.identifier == "custom:acme" && made.providerType == "oidc" && made.pkceEnabled && made.enabled)
        let stored = try #require(try await f.base.store.customProvider(identifier: "custom:acme"))
        #expect(!stored.sealedSecret.contains("s3cret"))
        #expect(try await f.providers.provider(named: "custom:acme")?.oauth?.secret == .fixed("s3cret"))
        #expect(try await f.providers.provider(named: "custom:acme")?.oauth?.redirectURI == "https://auth.example/callback")
        await #expect(throws: AuthError(.conflict, "A custom provider with identifier custom:acme already exists")) {
            try await f.providers.create(Fixture.acme)
        }
        var refused: [(CustomProviderRequest, String)] = []
        var bad = Fixture.acme
        bad.identifier = "acme"
        refused.append((bad, "identifier must start with 'custom:' prefix, e.g. 'custom:acme'"))
        bad = Fixture.acme
        bad.identifier = "custom:a b"
        refused.append((bad, "identifier must be 'custom:' and 1–64 letters, digits, '-' or '_'"))
        bad = Fixture.acme
        bad.clientSecret = nil
        refused.append((bad, "client_secret is required"))
        bad = Fixture.acme
        bad.issuer = "http://sso.acme.example"
        refused.append((bad, "issuer must be an HTTPS URL (plain HTTP only on a loopback address)"))
        bad = Fixture.acme
        bad.providerType = "oauth2"
        refused.append((bad, "Only OIDC providers are supported (provider_type 'oidc')"))
        for (request, message) in refused {
            await #expect(throws: AuthError.validation(message)) { try await f.providers.create(request) }
        }
        let off = try await f.providers.update("custom:acme", CustomProviderRequest(providerType: nil, enabled: false))
        #expect(!off.enabled && off.clientID == "acme-web")
        try await f.providers.delete("custom:acme")
        await #expect(throws: CustomProviders.notFound) { try await f.providers.get("custom:acme") }
    }

    @Test func theGrantFindsACustomProviderAtEachRequest() async throws {
        let f = Fixture()
        let token = { (aud: String) in
            f.base.reader.issue(
                f.base.claims("acme-1", aud: .string(aud), iss: "https://sso.acme.example"), by: "https://sso.acme.example")
        }
        await #expect(throws: AuthError(.validationFailed, "Custom provider \"acme\" not found")) {
            try await f.signIn.signIn(
                IDTokenGrantRequest(provider: "custom:acme", idToken: token("acme-ios")), client: IDTokenSignInTests.client)
        }
        _ = try await f.providers.create(Fixture.acme)
        let session = try await f.signIn.signIn(
            IDTokenGrantRequest(provider: "custom:acme", idToken: token("acme-ios")), client: IDTokenSignInTests.client)
        #expect(session.user.identities?.first?.provider == "custom:acme" && session.user.appMetadata["provider"] == "custom:acme")
        _ = try await f.providers.update("custom:acme", CustomProviderRequest(providerType: nil, enabled: false))
        await #expect(throws: AuthError(.providerDisabled, "Custom provider \"custom:acme\" is disabled")) {
            try await f.signIn.signIn(
                IDTokenGrantRequest(provider: "custom:acme", idToken: token("acme-ios")), client: IDTokenSignInTests.client)
        }
    }

    /// A subject is unique within its issuer only: after the operator points the provider at
    /// another issuer, that issuer's user with the same `sub` does not get the old account.
    @Test func anotherIssuersUserWithTheSameSubjectDoesNotGetTheAccount() async throws {
        let f = Fixture()
        _ = try await f.providers.create(Fixture.acme)
        func token(_ issuer: String) -> String {
            f.base.reader.issue(f.base.claims("same-sub", email: "same@acme.example", aud: "acme-web", iss: issuer), by: issuer)
        }
        let first = try await f.signIn.signIn(
            IDTokenGrantRequest(provider: "custom:acme", idToken: token("https://sso.acme.example")), client: IDTokenSignInTests.client)
        _ = try await f.providers.update("custom:acme", CustomProviderRequest(providerType: nil, issuer: "https://evil.example"))
        await #expect(throws: AuthError.self) {
            try await f.signIn.signIn(
                IDTokenGrantRequest(provider: "custom:acme", idToken: token("https://evil.example")), client: IDTokenSignInTests.client)
        }
        #expect(f.base.store.sessions(userID: first.user.id).count == 1)
    }

    /// A custom provider vouching for an address does not hand its user the confirmed account of
    /// that address unless the operator says so; a built-in provider's does, and the owner is told.
    @Test func aCustomProviderDoesNotLinkByEmailUnlessAllowed() async throws {
        let f = Fixture()
        _ = try await f.providers.create(Fixture.acme)
        let owner = f.base.owner("grace@example.com", confirmed: true)
        let token = f.base.reader.issue(
            f.base.claims("acme-grace", email: "grace@example.com", aud: "acme-web", iss: "https://sso.acme.example"),
            by: "https://sso.acme.example")
        let session = try await f.signIn.signIn(
            IDTokenGrantRequest(provider: "custom:acme", idToken: token), client: IDTokenSignInTests.client)
        #expect(session.user.id != owner.id && session.user.email != "grace@example.com")
        #expect(f.base.store.outbox.isEmpty)
        let google = try await f.base.attempt(f.base.claims("g-grace", email: "grace@example.com"))
        #expect(google.user.id == owner.id)
        #expect(f.base.store.outbox.map(\.recipient) == ["grace@example.com"])
    }
}
