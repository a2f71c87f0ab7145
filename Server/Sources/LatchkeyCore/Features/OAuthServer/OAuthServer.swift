import Foundation
import LatchkeyAPI

/// Latchkey as an OAuth 2.1 authorization server with OpenID Connect (#40), GoTrue's flow:
/// `GET /oauth/authorize` stores a client's request and sends the browser to the consent page
/// (the app's, at `GOTRUE_OAUTH_SERVER_AUTHORIZATION_PATH`, or Latchkey's hosted `/ui/consent`);
/// there the signed-in user reads it (`GET /oauth/authorizations/{id}`) and approves or denies
/// it (`POST …/consent`); the client exchanges the code at `POST /oauth/token` for a session of
/// its own, whose tokens carry `client_id` and `scope` and refresh only with the client's
/// credentials. The user lists and revokes what they granted at `/user/oauth/grants`.
///
/// Stricter than GoTrue where no client can tell: PKCE with `S256` (GoTrue's `plain` only in its
/// profile), a code presented twice ends the session it made, the code stored as a hash, a
/// revoked grant or a deleted client ends the client's sessions and its codes not yet spent.
public struct OAuthServer: Sendable {
    public struct Settings: Sendable {
        /// Where `GET /oauth/authorize` sends the browser, `?authorization_id=` appended: the
        /// site URL joined with `GOTRUE_OAUTH_SERVER_AUTHORIZATION_PATH`, else the hosted
        /// consent page when the hosted pages are on; `nil`: the client gets `server_error`.
        public var consentPage: String?
        /// Seconds a request, and then its code, stays good (`GOTRUE_OAUTH_SERVER_AUTHORIZATION_TTL`).
        public var authorizationTTL: Int
        /// The scopes of a request that names none (`GOTRUE_OAUTH_SERVER_DEFAULT_SCOPE`).
        public var defaultScope: String
        /// Whether PKCE's `plain` method is accepted (GoTrue's profile); else `S256` only.
        public var allowsPlainPKCE: Bool
        /// `/oauth/token` requests per client IP (as `/token`'s).
        public var tokenPerIP: RateLimit
        /// Seconds an `id_token` is good.
        public var idTokenLifetime: Int

        public init(
            consentPage: String? = nil, authorizationTTL: Int = 600, defaultScope: String = "email", allowsPlainPKCE: Bool = false,
            tokenPerIP: RateLimit = RateLimit(count: 30, period: 300), idTokenLifetime: Int = 3600
        ) {
            self.consentPage = consentPage
            self.authorizationTTL = authorizationTTL
            self.defaultScope = defaultScope
            self.allowsPlainPKCE = allowsPlainPKCE
            self.tokenPerIP = tokenPerIP
            self.idTokenLifetime = idTokenLifetime
        }
    }

    let clients: OAuthClients
    let store: any OAuthAuthorizationStore
    let refresh: SessionRefresh
    let answers: SessionAnswers
    let limiter: RateLimiter
    /// The app's origins, which alone may call the consent API from a browser.
    let redirects: RedirectPolicy
    public let settings: Settings

    public init(
        clients: OAuthClients, store: any OAuthAuthorizationStore, refresh: SessionRefresh, answers: SessionAnswers, limiter: RateLimiter,
        redirects: RedirectPolicy, settings: Settings
    ) {
        self.clients = clients
        self.store = store
        self.refresh = refresh
        self.answers = answers
        self.limiter = limiter
        self.redirects = redirects
        self.settings = settings
    }

    var time: any TimeSource { answers.time }
    var events: AuditEvents { AuditEvents(time: answers.time, random: answers.random) }

    /// `404 feature_disabled` while the OAuth server is off.
    public func requireEnabled() throws { try clients.requireEnabled() }

    /// Whether the tokens are signed with a key a client can verify: an `id_token` needs one
    /// (GoTrue refuses to sign one with HS256, whose key is the server's secret).
    public var signsIDTokens: Bool { answers.issuer.algorithm != "HS256" }

    /// The signing algorithm, as discovery announces it.
    public var signingAlgorithm: String { answers.issuer.algorithm }

    /// The `iss` of every token, and of the discovery documents.
    public var issuer: String { answers.issuerClaim }

    static func notFound() -> AuthError {
        var error = AuthError(.oauthAuthorizationNotFound, "authorization not found")
        error.status = 404
        return error
    }

    /// An OAuth error of the token endpoint (RFC 6749 §5.2): `400`, or `401` for `invalid_client`.
    static func tokenError(_ error: String, _ description: String) -> AuthError {
        var refusal = AuthError(error == "invalid_client" ? .invalidCredentials : .validationFailed, description, oauthError: error)
        if error == "invalid_client" { refusal.status = 401 }
        return refusal
    }

    /// `uri` (a registered redirect URI, or the consent page: no fragment) with `pairs` added to
    /// its query, form-encoded; empty values are left out.
    static func redirect(_ uri: String, _ pairs: [(String, String?)]) -> String {
        let query = FormEncoding.encode(pairs.compactMap { name, value in value.flatMap { $0.isEmpty ? nil : (name, $0) } })
        guard !query.isEmpty else { return uri }
        let separator = uri.contains("?") ? (uri.hasSuffix("?") || uri.hasSuffix("&") ? "" : "&") : "?"
        return uri + separator + query
    }
}
