import Foundation
import LatchkeyCore
import LatchkeyProviders

extension ServerConfiguration {
    /// The providers whose id tokens sign users in, read from `GOTRUE_EXTERNAL_<P>_*`; an issuer
    /// must be HTTPS (plain HTTP on a loopback address only), and an enabled provider needs a
    /// client id.
    static func externalSettings(_ reader: SettingReader, externalURL: String) throws -> ExternalSettings {
        var providers: [IdentityProvider] = []
        for (name, keys) in Setting.idTokenProviders {
            let enabled = try reader[keys.enabled]
            var clientIDs = reader[keys.clientID]
            if name == "apple", let bundle = reader[\.externalIOSBundleID] { clientIDs.append(bundle) }
            let issuers: IdentityProvider.Issuers
            let claims: IdentityProvider.Claims
            switch name {
            case "apple":
                issuers = .exact(try overriding(\.externalAppleIssuer, reader) ?? IdentityProvider.appleIssuers)
                claims = .apple
            case "google":
                issuers = .exact(try overriding(\.externalGoogleIssuer, reader) ?? [IdentityProvider.googleIssuer])
                claims = .google
            case "azure":
                issuers = try overriding(\.externalAzureURL, reader).map { .exact($0) } ?? .azureTenants
                // Any tenant: an address without `xms_edov` is not taken as verified unless the
                // operator says so (GoTrue takes it as verified).
                let trusted = try reader[\.externalAzureTrustEmailWithoutEDOV]
                claims = issuers == .azureTenants && !trusted ? .azureAnyTenant : .azure
            default:
                let url = try overriding(\.externalKeycloakURL, reader)
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
                    skipNonceCheck: try reader[keys.skipNonceCheck], emailOptional: try reader[keys.emailOptional],
                    oauth: try oauthClient(name, keys, reader, externalURL: externalURL)))
        }
        providers.append(try github(reader, externalURL: externalURL))
        var settings = ExternalSettings(
            providers: providers,
            allowUnverifiedEmailSignIns: try reader[\.mailerAllowUnverifiedEmailSignIns],
            keyCacheTTL: TimeInterval(try reader[\.externalOIDCCacheTTL]),
            manualLinking: try reader[\.securityManualLinkingEnabled])
        settings.customLinkByEmail = try reader[\.externalCustomLinkByEmail]
        return settings
    }

    /// GitHub (or GitHub Enterprise Server at `external-github-url`): the redirect flow only.
    static func github(_ reader: SettingReader, externalURL: String) throws -> IdentityProvider {
        let enabled = try reader[\.externalGithubEnabled]
        let clientID = reader[\.externalGithubClientID]
        let secret = reader[\.externalGithubSecret]
        if enabled && (clientID == nil || secret == nil) {
            throw ConfigurationError("external-github-client-id and external-github-secret are required with GitHub on")
        }
        var web = "https://github.com"
        var api = "https://api.github.com"
        if let url = try overriding(\.externalGithubURL, reader)?.first {
            web = url.hasSuffix("/") ? String(url.dropLast()) : url
            api = web.hasSuffix("api.github.com") ? web : web + "/api/v3"
        }
        let base = externalURL.hasSuffix("/") ? String(externalURL.dropLast()) : externalURL
        let oauth = secret.map { secret in
            OAuthClientSettings(
                secret: .fixed(secret), redirectURI: reader[\.externalGithubRedirectURI] ?? base + "/callback",
                scopes: ["user:email"], pkce: false, endpoints: (web, api))
        }
        return IdentityProvider(
            name: "github", enabled: enabled, issuers: .exact([]), claims: .github, clientIDs: clientID.map { [$0] } ?? [],
            emailOptional: try reader[\.externalGithubEmailOptional], oauth: oauth)
    }

    /// The redirect flow's client, when the provider has a secret (or, for Apple, a key to make one).
    static func oauthClient(
        _ name: String, _ keys: Setting.IDTokenProvider, _ reader: SettingReader, externalURL: String
    ) throws -> OAuthClientSettings? {
        let secret: OAuthClientSettings.Secret
        if name == "apple", let team = reader[\.externalAppleTeamID] {
            guard let keyID = reader[\.externalAppleKeyID] else {
                throw ConfigurationError("external-apple-key-id is required with external-apple-team-id")
            }
            var pem = reader[\.externalApplePrivateKey]
            if pem == nil, let path = reader[\.externalApplePrivateKeyFile] {
                guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                    throw ConfigurationError("external-apple-private-key-file '\(path)' cannot be read")
                }
                pem = text
            }
            guard let pem, AppleClientSecret.isUsable(privateKeyPEM: pem) else {
                throw ConfigurationError("external-apple-private-key must be the .p8 key's PEM text (an EC P-256 private key)")
            }
            secret = .apple(teamID: team, keyID: keyID, privateKeyPEM: pem)
        } else if let fixed = reader[keys.secret] {
            secret = .fixed(fixed)
        } else {
            return nil
        }
        let base = externalURL.hasSuffix("/") ? String(externalURL.dropLast()) : externalURL
        let redirectURI = reader[keys.redirectURI] ?? base + "/callback"
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
    static func overriding(_ path: Setting.Path<String?>, _ reader: SettingReader) throws -> [String]? {
        guard let text = reader[path] else { return nil }
        let key = Setting.self[keyPath: path].key
        // As the tokens spell it (a trailing slash included): it is compared as it is.
        let issuer = text.trimmingCharacters(in: .whitespaces)
        guard IssuerURL.isAcceptable(issuer) else {
            throw ConfigurationError("\(key) must be an HTTPS URL (plain HTTP only on a loopback address), not '\(text)'")
        }
        return [issuer]
    }
}
