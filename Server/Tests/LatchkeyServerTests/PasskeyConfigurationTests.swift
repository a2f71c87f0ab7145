import Foundation
import LatchkeyCore
import LatchkeyWebAuthn
import Testing

@testable import LatchkeyServer

/// GoTrue's `GOTRUE_PASSKEY_*` and `GOTRUE_WEBAUTHN_*`: read as GoTrue names them, defaults that
/// work for the hosted pages on a development machine, and a relying party that could never
/// verify a ceremony refused at start (GoTrue starts and answers every ceremony with a 500).
@Suite struct PasskeyConfigurationTests {
    @Test func goTruesSettingsAreRead() throws {
        let configuration = try ServerConfiguration.load(environment: [
            "GOTRUE_PASSKEY_ENABLED": "true", "GOTRUE_PASSKEY_MAX_PASSKEYS_PER_USER": "3", "GOTRUE_WEBAUTHN_RP_ID": "Example.com",
            "GOTRUE_WEBAUTHN_RP_DISPLAY_NAME": "Example",
            "GOTRUE_WEBAUTHN_RP_ORIGINS":
                "https://example.com, https://App.Example.com:443/, https://app.example.com:8443, android:apk-key-hash:abc",
            "GOTRUE_WEBAUTHN_CHALLENGE_EXPIRY_DURATION": "2m", "GOTRUE_RATE_LIMIT_PASSKEY": "7",
            "GOTRUE_RATE_LIMIT_HEADER": "X-Forwarded-For",
        ])
        let passkeys = configuration.auth.passkeys
        #expect(passkeys.enabled && passkeys.maxPerUser == 3 && passkeys.displayName == "Example")
        #expect(passkeys.relyingParty.id == "example.com" && passkeys.relyingParty.requireUserVerification)
        #expect(
            passkeys.relyingParty.origins == [
                "https://example.com", "https://app.example.com", "https://app.example.com:8443", "android:apk-key-hash:abc",
            ])
        #expect(passkeys.challengeLifetime == 120 && passkeys.perIP.count == 7 && passkeys.perIP.period == 300)
    }

    @Test func defaultsServeTheHostedPagesOnThisMachine() throws {
        let local = try ServerConfiguration.load(environment: ["GOTRUE_PASSKEY_ENABLED": "true", "LATCHKEY_PORT": "9123"]).auth.passkeys
        #expect(local.relyingParty.id == "localhost" && local.relyingParty.origins == ["http://localhost:9123"])
        #expect(local.displayName == "Latchkey" && local.maxPerUser == 10 && local.challengeLifetime == 300)
        let deployed = try ServerConfiguration.load(environment: [
            "GOTRUE_PASSKEY_ENABLED": "true", "API_EXTERNAL_URL": "https://auth.example.com", "LATCHKEY_APP_NAME": "Example",
            "LATCHKEY_PASSKEY_USER_VERIFICATION": "preferred",
        ]).auth.passkeys
        #expect(deployed.relyingParty.id == "auth.example.com" && deployed.relyingParty.origins == ["https://auth.example.com"])
        #expect(deployed.displayName == "Example" && !deployed.relyingParty.requireUserVerification)
        #expect(try ServerConfiguration.load(environment: [:]).auth.passkeys.enabled == false)
    }

    @Test(arguments: [
        ["GOTRUE_WEBAUTHN_RP_ID": "192.168.1.10"],
        ["GOTRUE_WEBAUTHN_RP_ID": "example.com", "GOTRUE_WEBAUTHN_RP_ORIGINS": "http://example.com"],
        ["GOTRUE_WEBAUTHN_RP_ID": "example.com", "GOTRUE_WEBAUTHN_RP_ORIGINS": "https://example.com.evil.test"],
        ["GOTRUE_WEBAUTHN_RP_ID": "example.com", "GOTRUE_WEBAUTHN_RP_ORIGINS": "https://notexample.com"],
        ["GOTRUE_WEBAUTHN_RP_ID": "example.com", "GOTRUE_WEBAUTHN_RP_ORIGINS": "https://example.com/app"],
        ["GOTRUE_WEBAUTHN_RP_ID": "example.com", "GOTRUE_WEBAUTHN_RP_ORIGINS": "https://user@example.com"],
        ["GOTRUE_WEBAUTHN_RP_ID": "example.com", "GOTRUE_WEBAUTHN_RP_ORIGINS": "example.com"],
        ["GOTRUE_WEBAUTHN_RP_ID": "exa mple.com"],
        ["GOTRUE_WEBAUTHN_RP_ID": "-example.com"],
        ["LATCHKEY_PASSKEY_USER_VERIFICATION": "discouraged"],
        ["GOTRUE_PASSKEY_MAX_PASSKEYS_PER_USER": "0"],
    ])
    func aRelyingPartyThatCannotWorkRefusesToStart(environment: [String: String]) {
        #expect(throws: ConfigurationError.self) {
            try ServerConfiguration.load(environment: environment.merging(["GOTRUE_PASSKEY_ENABLED": "true"]) { a, _ in a })
        }
    }
}
