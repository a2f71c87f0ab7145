import Foundation

extension Setting {
    /// The OAuth 2.1 server for other applications (`GOTRUE_OAUTH_SERVER_*`, #40).
    static let oauthServer: [any SettingDeclaration] = [
        oauthServerEnabled,
        oauthServerAllowDynamicRegistration,
        rateLimitOAuthDynamicClientRegister,
    ]
}

extension Setting {
    static let oauthServerEnabled = flag(
        "oauth-server-enabled", ["LATCHKEY_OAUTH_SERVER_ENABLED", "GOTRUE_OAUTH_SERVER_ENABLED"], default: false,
        summary:
            "Latchkey as an OAuth 2.1 server for other applications: its clients at `/admin/oauth/clients` (the authorization flow lands in a later step). Off: every `/oauth` and `/admin/oauth` route answers `404 feature_disabled`, as GoTrue."
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
}
