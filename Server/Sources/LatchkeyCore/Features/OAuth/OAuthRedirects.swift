import Crypto
import Foundation
import LatchkeyAPI

/// The redirect flow: `GET /authorize` sends the browser to the provider with a sealed, short-lived,
/// single-use `state`; `GET|POST /callback` exchanges the provider's code, checks the id token as
/// the id-token grant does, signs the user in (or links the identity), and sends the browser back
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

    public init(
        signIn: IDTokenSignIn, client: any OAuthProviderClient, limits: any RateLimitStore, serverSecret: [UInt8],
        redirects: RedirectPolicy, lifetime: TimeInterval
    ) {
        self.signIn = signIn
        self.client = client
        self.limits = limits
        self.box = OAuthState.box(serverSecret: serverSecret)
        self.redirects = redirects
        self.lifetime = max(lifetime, 300)
    }

    var records: Records { signIn.records }

    /// The provider's authorization URL for this request, with a new state.
    public func authorize(
        provider name: String?, redirectTo: String?, scopes: String?, codeChallenge: String?, codeChallengeMethod: String?,
        linking userID: UUID? = nil
    ) async throws -> String {
        let given = name ?? ""
        let lowered = given.hasPrefix("custom:") ? given : given.lowercased()
        guard let provider = try await signIn.lookup(lowered) else {
            throw AuthError.validation("Unsupported provider: Provider \(lowered) could not be found")
        }
        guard provider.enabled else { throw AuthError.validation("Unsupported provider: provider is not enabled") }
        guard let oauth = provider.oauth else { throw AuthError.validation("Unsupported provider: missing OAuth secret") }
        let challenge = try PKCEChallenge.parse(challenge: codeChallenge, method: codeChallengeMethod)
        let verifier = records.random.linkSecret()
        let nonce = records.random.linkSecret()
        let state = OAuthState(
            id: records.random.linkSecret(), provider: provider.name, redirectTo: redirects.resolve(redirectTo),
            codeChallenge: challenge?.challenge, codeChallengeMethod: challenge?.method.rawValue, providerVerifier: verifier,
            nonce: nonce, linkingUserID: userID, expiresAt: records.time.now().timeIntervalSince1970 + lifetime)
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
        if provider.isOpenID { query.append(("nonce", SHA256.hash(data: Data(nonce.utf8)).hexString)) }
        if oauth.formPost { query.append(("response_mode", "form_post")) }
        if oauth.pkce {
            query += [("code_challenge", PKCEVerifier.s256(verifier)), ("code_challenge_method", "S256")]
        }
        return endpoint + (endpoint.contains("?") ? "&" : "?") + FormEncoding.encode(query)
    }
}
