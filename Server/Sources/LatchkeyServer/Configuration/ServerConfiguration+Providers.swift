import Foundation
import LatchkeyCore
import LatchkeyProviders

extension ServerConfiguration {
    /// The providers whose id tokens sign users in, read from `GOTRUE_EXTERNAL_<P>_*`; an issuer
    /// must be HTTPS (plain HTTP on a loopback address only), and an enabled provider needs a
    /// client id.
    static func externalSettings(_ reader: SettingReader, externalURL: String) throws -> ExternalSettings {
        var providers: [IdentityProvider] = []
        for name in ["apple", "google", "azure", "keycloak"] {
            let enabled = try reader.bool("external-\(name)-enabled") ?? false
            var clientIDs = reader.list("external-\(name)-client-id")
            if name == "apple", let bundle = reader.string("external-ios-bundle-id") { clientIDs.append(bundle) }
            let issuers: IdentityProvider.Issuers
            let claims: IdentityProvider.Claims
            switch name {
            case "apple":
                issuers = .exact(try overriding("external-apple-issuer", reader) ?? IdentityProvider.appleIssuers)
                claims = .apple
            case "google":
                issuers = .exact(try overriding("external-google-issuer", reader) ?? [IdentityProvider.googleIssuer])
                claims = .google
            case "azure":
                issuers = try overriding("external-azure-url", reader).map { .exact($0) } ?? .azureTenants
                // Any tenant: an address without `xms_edov` is not taken as verified unless the
                // operator says so (GoTrue takes it as verified).
                let trusted = try reader.bool(orDefault: "external-azure-trust-email-without-edov")
                claims = issuers == .azureTenants && !trusted ? .azureAnyTenant : .azure
            default:
                let url = try overriding("external-keycloak-url", reader)
                if enabled && url == nil {
                    throw ConfigurationError("external-keycloak-url (GOTRUE_EXTERNAL_KEYCLOAK_URL) is required with Keycloak on")
                }
                issuers = .exact(url ?? [])
                claims = .standard
            }
            if enabled && clientIDs.isEmpty {
                throw ConfigurationError(
                    "external-\(name)-client-id (GOTRUE_EXTERNAL_\(name.uppercased())_CLIENT_ID) is required with \(name) on")
            }
            providers.append(
                IdentityProvider(
                    name: name, enabled: enabled, issuers: issuers, claims: claims, clientIDs: clientIDs,
                    skipNonceCheck: try reader.bool("external-\(name)-skip-nonce-check") ?? false,
                    emailOptional: try reader.bool("external-\(name)-email-optional") ?? false,
                    oauth: try oauthClient(name, reader, externalURL: externalURL)))
        }
        providers.append(try github(reader, externalURL: externalURL))
        var settings = ExternalSettings(
            providers: providers,
            allowUnverifiedEmailSignIns: try reader.bool(orDefault: "mailer-allow-unverified-email-sign-ins"),
            keyCacheTTL: TimeInterval(try reader.seconds(orDefault: "external-oidc-cache-ttl")),
            manualLinking: try reader.bool(orDefault: "security-manual-linking-enabled"))
        settings.customLinkByEmail = try reader.bool(orDefault: "external-custom-link-by-email")
        return settings
    }

    /// GitHub (or GitHub Enterprise Server at `external-github-url`): the redirect flow only.
    static func github(_ reader: SettingReader, externalURL: String) throws -> IdentityProvider {
        let enabled = try reader.bool(orDefault: "external-github-enabled")
        let clientID = reader.string("external-github-client-id")
        let secret = reader.string("external-github-secret")
        if enabled && (clientID == nil || secret == nil) {
            throw ConfigurationError("external-github-client-id and external-github-secret are required with GitHub on")
        }
        var web = "https://github.com"
        var api = "https://api.github.com"
        if let url = try overriding("external-github-url", reader)?.first {
            web = url.hasSuffix("/") ? String(url.dropLast()) : url
            api = web.hasSuffix("api.github.com") ? web : web + "/api/v3"
        }
        let base = externalURL.hasSuffix("/") ? String(externalURL.dropLast()) : externalURL
        let oauth = secret.map { secret in
            OAuthClientSettings(
                secret: .fixed(secret), redirectURI: reader.string("external-github-redirect-uri") ?? base + "/callback",
                scopes: ["user:email"], pkce: false, endpoints: (web, api))
        }
        return IdentityProvider(
            name: "github", enabled: enabled, issuers: .exact([]), claims: .github, clientIDs: clientID.map { [$0] } ?? [],
            emailOptional: try reader.bool(orDefault: "external-github-email-optional"), oauth: oauth)
    }

    /// The redirect flow's client, when the provider has a secret (or, for Apple, a key to make one).
    static func oauthClient(_ name: String, _ reader: SettingReader, externalURL: String) throws -> OAuthClientSettings? {
        let secret: OAuthClientSettings.Secret
        if name == "apple", let team = reader.string("external-apple-team-id") {
            guard let keyID = reader.string("external-apple-key-id") else {
                throw ConfigurationError("external-apple-key-id is required with external-apple-team-id")
            }
            var pem = reader.string("external-apple-private-key")
            if pem == nil, let path = reader.string("external-apple-private-key-file") {
                guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                    throw ConfigurationError("external-apple-private-key-file '\(path)' cannot be read")
                }
                pem = text
            }
            guard let pem, AppleClientSecret.isUsable(privateKeyPEM: pem) else {
                throw ConfigurationError("external-apple-private-key must be the .p8 key's PEM text (an EC P-256 private key)")
            }
            secret = .apple(teamID: team, keyID: keyID, privateKeyPEM: pem)
        } else if let fixed = reader.string("external-\(name)-secret") {
            secret = .fixed(fixed)
        } else {
            return nil
        }
        let base = externalURL.hasSuffix("/") ? String(externalURL.dropLast()) : externalURL
        let redirectURI = reader.string("external-\(name)-redirect-uri") ?? base + "/callback"
        guard URLComponents(string: redirectURI)?.host != nil else {
            throw ConfigurationError("external-\(name)-redirect-uri must be an absolute URL, not '\(redirectURI)'")
        }
        let scopes: [String] =
            switch name {
            case "apple": ["name", "email"]
            case "keycloak": ["openid", "profile", "email"]
            default: ["openid", "email", "profile"]
            }
        return OAuthClientSettings(
            secret: secret, redirectURI: redirectURI, scopes: scopes, formPost: name == "apple", pkce: name != "apple")
    }

    /// An issuer setting's value, checked; `nil` when unset.
    static func overriding(_ key: String, _ reader: SettingReader) throws -> [String]? {
        guard let text = reader.string(key) else { return nil }
        // As the tokens spell it (a trailing slash included): it is compared as it is.
        let issuer = text.trimmingCharacters(in: .whitespaces)
        guard IssuerURL.isAcceptable(issuer) else {
            throw ConfigurationError("\(key) must be an HTTPS URL (plain HTTP only on a loopback address), not '\(text)'")
        }
        return [issuer]
    }
}
