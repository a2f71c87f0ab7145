import Crypto
import Foundation
import LatchkeyAPI

/// The redirect flow: `GET /authorize` sends the browser to the provider with a sealed, short-lived,
/// single-use `state` bound to that browser (the hash of a random cookie the controller sets);
/// `GET|POST /callback` exchanges the provider's code, checks the id token as the id-token grant
/// does, signs the user in (or links the identity), and sends the browser back
/// to the app: with `?code=` for an app that sent a PKCE challenge, else with the session in the
/// fragment, as GoTrue does. Errors go back to the app as GoTrue's `error`/`error_description`.
public struct OAuthRedirects: Sendable {
    /// Where a finished callback sends the browser.
    public enum Outcome: Sendable, Equatable {
        /// The implicit flow: the session (and the provider's access token) for the fragment.
        case session(Session, providerToken: String, to: String)
        /// PKCE: the code the app exchanges (`POST /token?grant_type=pkce`).
        case authCode(String, to: String)
        /// A refusal, for the query and the fragment of `to`; `providerError` is the provider's own
        /// `error`, passed on as it came.
        case failure(AuthError, providerError: String?, to: String)
    }

    let signIn: IDTokenSignIn
    let client: any OAuthProviderClient
    let limits: any RateLimitStore
    let box: SecretBox
    let redirects: RedirectPolicy
    /// Seconds a state (and a PKCE code) is good for (`GOTRUE_EXTERNAL_FLOW_STATE_EXPIRY_DURATION`).
    let lifetime: TimeInterval
    /// The server's own URL (`API_EXTERNAL_URL`), where link tickets are opened.
    let externalURL: String

    public init(
        signIn: IDTokenSignIn, client: any OAuthProviderClient, limits: any RateLimitStore, serverSecret: [UInt8],
        redirects: RedirectPolicy, lifetime: TimeInterval, externalURL: String = "http://localhost:9999"
    ) {
        self.externalURL = externalURL
        self.signIn = signIn
        self.client = client
        self.limits = limits
        self.box = OAuthState.box(serverSecret: serverSecret)
        self.redirects = redirects
        self.lifetime = max(lifetime, 300)
    }

    var records: Records { signIn.records }

    /// Where a refusal goes when no app's `redirect_to` is known: the site URL.
    public var siteURL: String { redirects.resolve(nil) }

    /// The provider's authorization URL for this request, with a new state bound to the browser
    /// whose binding cookie is `binding` (a random value the controller keeps in a cookie).
    public func authorize(
        provider name: String?, redirectTo: String?, scopes: String?, codeChallenge: String?, codeChallengeMethod: String?,
        binding: String
    ) async throws -> String {
        var (provider, state) = try await newState(
            provider: name, redirectTo: redirectTo, codeChallenge: codeChallenge, codeChallengeMethod: codeChallengeMethod,
            linking: nil)
        state.binding = OAuthState.bindingHash(binding)
        return try await providerURL(provider, state: state, scopes: scopes)
    }

    /// Seconds a link ticket may wait for its browser to open it.
    public static let ticketLifetime: TimeInterval = 120

    /// Latchkey's own URL that starts linking in whichever browser opens it: the state, without a
    /// binding yet, sealed as a short single-use ticket (``continueLink(ticket:binding:)``).
    /// Linking is started by a request with the user's bearer token (from the app, not from the
    /// browser that will talk to the provider), so the browser is bound only when it opens this.
    /// The link answers the session in the fragment, as before tickets: no PKCE challenge is kept.
    public func linkTicketURL(provider name: String?, redirectTo: String?, scopes: String?, linking: LinkingSession) async throws
        -> String
    {
        var (_, state) = try await newState(
            provider: name, redirectTo: redirectTo, codeChallenge: nil, codeChallengeMethod: nil, linking: linking)
        state.scopes = scopes
        state.expiresAt = records.time.now().timeIntervalSince1970 + Self.ticketLifetime
        let ticket = try state.sealed(in: box, context: "link ticket")
        let base = externalURL.hasSuffix("/") ? String(externalURL.dropLast()) : externalURL
        return base + "/user/identities/continue?" + FormEncoding.encode([("ticket", ticket)])
    }

    /// Opens a link ticket in the browser whose binding cookie is `binding`: spends it (a ticket
    /// works once, for ``ticketLifetime``) and answers the provider's URL with a state bound to
    /// that browser. A ticket that is not this server's, expired or spent is `bad_oauth_state`.
    public func continueLink(ticket: String?, binding: String) async throws -> String {
        guard let ticket, var state = OAuthState.opened(ticket, in: box, context: "link ticket"), state.linking != nil else {
            throw AuthError(.badOAuthState, "OAuth state parameter is invalid")
        }
        let now = records.time.now().timeIntervalSince1970
        guard now <= state.expiresAt else { throw AuthError(.badOAuthState, "OAuth state has expired") }
        guard try await spend("oauth:ticket:" + state.id, until: state.expiresAt) else {
            throw AuthError(.badOAuthState, "OAuth state has already been used")
        }
        guard let provider = try await signIn.lookup(state.provider), provider.enabled, provider.oauth != nil else {
            throw AuthError(.providerDisabled, "Provider \(state.provider) is not enabled")
        }
        state.binding = OAuthState.bindingHash(binding)
        state.expiresAt = now + lifetime
        let scopes = state.scopes
        state.scopes = nil
        return try await providerURL(provider, state: state, scopes: scopes)
    }

    /// Spends the one-time `key` (a counter that allows one event, kept until `until`): `false`
    /// when it was spent before.
    func spend(_ key: String, until: Double) async throws -> Bool {
        let counts = try await limits.incrementRateLimits([
            RateLimitCounter(
                key: key, windowStart: Date(timeIntervalSince1970: 0), expiresAt: Date(timeIntervalSince1970: until), limit: 1)
        ])
        return counts.first == 1
    }

    /// A new state for a flow with the provider `name`, and the provider.
    func newState(
        provider name: String?, redirectTo: String?, codeChallenge: String?, codeChallengeMethod: String?, linking: LinkingSession?
    ) async throws -> (IdentityProvider, OAuthState) {
        let given = name ?? ""
        let lowered = given.hasPrefix("custom:") ? given : given.lowercased()
        guard let provider = try await signIn.lookup(lowered) else {
            throw AuthError.validation("Unsupported provider: Provider \(lowered) could not be found")
        }
        guard provider.enabled else { throw AuthError.validation("Unsupported provider: provider is not enabled") }
        guard provider.oauth != nil else { throw AuthError.validation("Unsupported provider: missing OAuth secret") }
        let challenge = try PKCEChallenge.parse(challenge: codeChallenge, method: codeChallengeMethod)
        let state = OAuthState(
            id: records.random.linkSecret(), provider: provider.name, redirectTo: redirects.resolve(redirectTo),
            codeChallenge: challenge?.challenge, codeChallengeMethod: challenge?.method.rawValue,
            providerVerifier: records.random.linkSecret(), nonce: records.random.linkSecret(), linking: linking, binding: nil,
            scopes: nil, expiresAt: records.time.now().timeIntervalSince1970 + lifetime)
        return (provider, state)
    }

    /// The provider's authorization URL carrying `state`.
    func providerURL(_ provider: IdentityProvider, state: OAuthState, scopes: String?) async throws -> String {
        guard let oauth = provider.oauth else { throw AuthError.validation("Unsupported provider: missing OAuth secret") }
        let endpoint: String
        do {
            endpoint = try await client.authorizationEndpoint(for: provider)
        } catch {
            throw IDTokenSignIn.providerUnreachable
        }
        var scopeList = oauth.scopes
        if !oauth.formPost {
            for scope in (scopes ?? "").split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !scope.isEmpty {
                if !scopeList.contains(scope) { scopeList.append(scope) }
            }
        }
        var query: [(String, String)] = [
            ("client_id", provider.clientIDs.first ?? ""), ("redirect_uri", oauth.redirectURI), ("response_type", "code"),
            ("scope", scopeList.joined(separator: " ")), ("state", try state.sealed(in: box)),
        ]
        if provider.isOpenID { query.append(("nonce", SHA256.hash(data: Data(state.nonce.utf8)).hexString)) }
        if oauth.formPost { query.append(("response_mode", "form_post")) }
        if oauth.pkce {
            query += [("code_challenge", PKCEVerifier.s256(state.providerVerifier)), ("code_challenge_method", "S256")]
        }
        return endpoint + (endpoint.contains("?") ? "&" : "?") + FormEncoding.encode(query)
    }
}
