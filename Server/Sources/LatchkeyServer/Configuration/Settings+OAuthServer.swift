import Foundation
import LatchkeyCore

extension Setting {
    /// The OAuth 2.1 server for other applications (`GOTRUE_OAUTH_SERVER_*`, #40).
    static let oauthServer: [any SettingDeclaration] = [
        oauthServerEnabled,
        oauthServerAllowDynamicRegistration,
        rateLimitOAuthDynamicClientRegister,
        oauthServerAuthorizationPath,
        oauthServerAuthorizationTTL,
        oauthServerDefaultScope,
        oauthServerPKCEPlain,
    ]
}

extension Setting {
    static let oauthServerEnabled = flag(
        "oauth-server-enabled", ["LATCHKEY_OAUTH_SERVER_ENABLED", "GOTRUE_OAUTH_SERVER_ENABLED"], default: false,
        summary:
            "Latchkey as an OAuth 2.1 and OpenID Connect server for other applications (docs/oauth-server.md): clients at `/admin/oauth/clients`, the flow at `/oauth/authorize`, `/oauth/token`, `/oauth/userinfo`. Off: every `/oauth` and `/admin/oauth` route answers `404 feature_disabled`, as GoTrue."
    )

    static let oauthServerAllowDynamicRegistration = flag(
        "oauth-server-allow-dynamic-registration",
        ["LATCHKEY_OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION", "GOTRUE_OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION"], default: false,
        summary:
            "Applications may register themselves at `POST /oauth/clients/register` (RFC 7591; MCP clients do). Off: `403 oauth_dynamic_client_registration_disabled`."
    )

    static let rateLimitOAuthDynamicClientRegister = count(
        "rate-limit-oauth-dynamic-client-register",
        ["LATCHKEY_RATE_LIMIT_OAUTH_DYNAMIC_CLIENT_REGISTER", "GOTRUE_RATE_LIMIT_O_AUTH_DYNAMIC_CLIENT_REGISTER"], default: 10,
        summary:
            "Dynamic client registrations per client IP per 5 minutes (GoTrue's variable is spelled `O_AUTH`, as its configuration reads it)."
    )

    static let oauthServerAuthorizationPath = text(
        "oauth-server-authorization-path",
        ["LATCHKEY_OAUTH_SERVER_AUTHORIZATION_PATH", "GOTRUE_OAUTH_SERVER_AUTHORIZATION_PATH"],
        summary:
            "The app's consent page, a path joined to the site URL: `GET /oauth/authorize` sends the browser there with `?authorization_id=`. Unset: Latchkey's hosted consent page (`/ui/consent`) when the hosted pages are on, else the client is answered `server_error`, as GoTrue."
    )

    static let oauthServerAuthorizationTTL = seconds(
        "oauth-server-authorization-ttl", ["LATCHKEY_OAUTH_SERVER_AUTHORIZATION_TTL", "GOTRUE_OAUTH_SERVER_AUTHORIZATION_TTL"],
        default: 600, in: 10...86_400,
        summary: "Seconds an authorization request, and then its code, stays good.")

    static let oauthServerDefaultScope = text(
        "oauth-server-default-scope", ["LATCHKEY_OAUTH_SERVER_DEFAULT_SCOPE", "GOTRUE_OAUTH_SERVER_DEFAULT_SCOPE"], default: "email",
        summary:
            "The scopes of an authorization request that names none, separated by spaces (`openid`, `email`, `profile`, `phone`, `offline_access`)."
    )

    static let oauthServerPKCEPlain = flag(
        "oauth-server-pkce-plain", ["LATCHKEY_OAUTH_SERVER_PKCE_PLAIN"], default: false, goTrue: true,
        summary: "Whether PKCE's `plain` method is accepted beside `S256` (GoTrue accepts it; OAuth 2.1 clients send `S256`).")
}

extension ServerConfiguration {
    /// The OAuth server's flow: the consent page is the site URL joined with the authorization
    /// path (slashes between them made one, as GoTrue joins them).
    static func oauthFlowSettings(_ reader: SettingReader, siteURL: String, tokenPerIP: RateLimit) throws -> OAuthServer.Settings {
        var consentPage: String?
        if let path = reader[\.oauthServerAuthorizationPath]?.trimmingCharacters(in: .whitespaces), !path.isEmpty {
            var base = siteURL
            while base.hasSuffix("/") { base.removeLast() }
            consentPage = base + (path.hasPrefix("/") ? path : "/" + path)
            guard let url = URLComponents(string: consentPage ?? ""), url.scheme != nil, url.host != nil, url.fragment == nil else {
                throw ConfigurationError("oauth-server-authorization-path must make a URL with the site URL, not '\(path)'")
            }
        }
        let scope = OAuthScopes.parse(reader[\.oauthServerDefaultScope])
        if scope.isEmpty || scope.contains(where: { !OAuthScopes.supported.contains($0) }) {
            throw ConfigurationError("oauth-server-default-scope must name scopes among \(OAuthScopes.supported.joined(separator: " "))")
        }
        return OAuthServer.Settings(
            consentPage: consentPage, authorizationTTL: try reader[\.oauthServerAuthorizationTTL],
            defaultScope: scope.joined(separator: " "),
            allowsPlainPKCE: try reader[\.oauthServerPKCEPlain], tokenPerIP: tokenPerIP)
    }
}
