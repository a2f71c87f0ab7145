import Foundation
import LatchkeyCore
import Testing

@testable import LatchkeyServer

/// GoTrue's `GOTRUE_EXTERNAL_<P>_*` become Latchkey's providers; what would be unsafe or
/// silently wrong refuses to start.
@Suite struct ExternalProviderConfigurationTests {
    @Test func goTruesProviderSettingsAreRead() throws {
        let configuration = try ServerConfiguration.load(environment: [
            "GOTRUE_EXTERNAL_APPLE_ENABLED": "true", "GOTRUE_EXTERNAL_APPLE_CLIENT_ID": "com.example.web, com.example.other",
            "GOTRUE_EXTERNAL_IOS_BUNDLE_ID": "com.example.app", "GOTRUE_EXTERNAL_GOOGLE_ENABLED": "true",
            "GOTRUE_EXTERNAL_GOOGLE_CLIENT_ID": "g.apps", "GOTRUE_EXTERNAL_GOOGLE_SKIP_NONCE_CHECK": "true",
            "GOTRUE_EXTERNAL_KEYCLOAK_URL": "https://sso.example/realms/main", "GOTRUE_EXTERNAL_OIDC_PROVIDER_CACHE_TTL": "10m",
            "GOTRUE_MAILER_ALLOW_UNVERIFIED_EMAIL_SIGN_INS": "true",
        ])
        let external = configuration.auth.external
        let apple = try #require(external.providers.first { $0.name == "apple" })
        #expect(apple.enabled && apple.clientIDs == ["com.example.web", "com.example.other", "com.example.app"])
        #expect(apple.issuers == .exact(IdentityProvider.appleIssuers) && apple.claims == .apple)
        let google = try #require(external.providers.first { $0.name == "google" })
        #expect(google.enabled && google.skipNonceCheck && google.clientIDs == ["g.apps"])
        let keycloak = try #require(external.providers.first { $0.name == "keycloak" })
        #expect(!keycloak.enabled && keycloak.issuers == .exact(["https://sso.example/realms/main"]))
        #expect(external.providers.first { $0.name == "azure" }?.issuers == .azureTenants)
        #expect(external.keyCacheTTL == 600 && external.allowUnverifiedEmailSignIns)
        #expect(external.reported["apple"] == true && external.reported["keycloak"] == false && external.reported["github"] == false)
    }

    @Test func unsafeOrIncompleteProvidersRefuseToStart() {
        let refused: [[String: String]] = [
            ["GOTRUE_EXTERNAL_GOOGLE_ENABLED": "true"],
            ["GOTRUE_EXTERNAL_KEYCLOAK_ENABLED": "true", "GOTRUE_EXTERNAL_KEYCLOAK_CLIENT_ID": "kc"],
            ["GOTRUE_EXTERNAL_KEYCLOAK_URL": "http://sso.example/realms/main"],
            ["LATCHKEY_EXTERNAL_APPLE_ISSUER": "http://appleid.apple.com"],
            ["LATCHKEY_EXTERNAL_GOOGLE_ISSUER": "ftp://accounts.google.com"],
            ["GOTRUE_EXTERNAL_APPLE_ENABLED": "maybe"],
        ]
        for environment in refused {
            #expect(throws: ConfigurationError.self, "\(environment)") { try ServerConfiguration.load(environment: environment) }
        }
        #expect(throws: Never.self) {
            try ServerConfiguration.load(environment: ["LATCHKEY_EXTERNAL_GOOGLE_ISSUER": "http://127.0.0.1:8080/google"])
        }
    }
}
