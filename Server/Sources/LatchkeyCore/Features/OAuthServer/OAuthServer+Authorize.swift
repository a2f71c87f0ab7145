import Foundation
import LatchkeyAPI

/// The parameters of `GET /oauth/authorize`, as the query gave them.
public struct OAuthAuthorizeRequest: Sendable, Equatable {
    public var clientID: String?
    public var redirectURI: String?
    public var responseType: String?
    public var scope: String?
    public var state: String?
    public var resource: String?
    public var codeChallenge: String?
    public var codeChallengeMethod: String?
    public var nonce: String?

    public init(
        clientID: String? = nil, redirectURI: String? = nil, responseType: String? = nil, scope: String? = nil, state: String? = nil,
        resource: String? = nil, codeChallenge: String? = nil, codeChallengeMethod: String? = nil, nonce: String? = nil
    ) {
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.responseType = responseType
        self.scope = scope
        self.state = state
        self.resource = resource
        self.codeChallenge = codeChallenge
        self.codeChallengeMethod = codeChallengeMethod
        self.nonce = nonce
    }
}

extension OAuthServer {
    /// `GET /oauth/authorize`: where the browser goes, the consent page with the stored
    /// request's id, or the client's redirect URI with an OAuth error. A request whose client or
    /// redirect URI is not known is refused here (thrown: never redirected to a URI not registered).
    /// Each request stores a row until a day past its end, so they are counted per client IP
    /// (the `/token` limit's size, under a key of their own); GoTrue does not count them.
    public func authorize(_ request: OAuthAuthorizeRequest, client: ClientInfo) async throws -> String {
        try requireEnabled()
        try await limiter.hit([.init("ip:oauth_authorize:\(client.ip)", settings.tokenPerIP)])
        guard let rawClient = nonEmpty(request.clientID) else { throw AuthError.validation("client_id is required") }
        guard let redirectURI = nonEmpty(request.redirectURI) else { throw AuthError.validation("redirect_uri is required") }
        guard let clientID = UUID(text: rawClient) else { throw AuthError(.oauthClientNotFound, "invalid client_id format") }
        guard let client = try await store.oauthClient(id: clientID) else { throw AuthError(.oauthClientNotFound, "invalid client_id") }
        // Matched exactly, byte for byte (OAuth 2.1 §4.1.1); registered URIs passed the redirect rules.
        guard client.redirectURIs.contains(redirectURI) else { throw AuthError.validation("invalid redirect_uri") }

        // From here on, errors go to the client at its redirect URI, with its state.
        let state = nonEmpty(request.state)
        func refuse(_ error: String, _ description: String) -> String {
            Self.redirect(redirectURI, [("error", error), ("error_description", description), ("state", state)])
        }
        if let problem = invalidParameters(request, client: client) { return refuse(problem.error, problem.description) }
        let scope = OAuthScopes.parse(nonEmpty(request.scope) ?? settings.defaultScope)
        if let unsupported = scope.first(where: { !OAuthScopes.supported.contains($0) }) {
            return refuse("invalid_scope", "unsupported scope: \(unsupported)")
        }
        if scope.isEmpty { return refuse("invalid_scope", "scope parameter cannot be empty") }
        if scope.contains(OAuthScopes.openID), !signsIDTokens {
            return refuse(
                "invalid_scope", "openid needs an asymmetric signing key (GOTRUE_JWT_KEYS): an HS256 id_token could not be verified")
        }
        let challenge: PKCEChallenge
        do {
            guard let parsed = try PKCEChallenge.parse(challenge: request.codeChallenge, method: request.codeChallengeMethod) else {
                return refuse("invalid_request", "PKCE flow requires both code_challenge and code_challenge_method")
            }
            challenge = parsed
        } catch let error as AuthError {
            return refuse("invalid_request", error.message)
        }
        if challenge.method == .plain, !settings.allowsPlainPKCE {
            return refuse("invalid_request", "code_challenge_method must be S256")
        }
        guard let consentPage = settings.consentPage else {
            return refuse("server_error", "oauth authorization path not configured")
        }
        let now = time.now()
        let authorization = OAuthAuthorizationRecord(
            id: answers.random.uuid(), authorizationID: Self.authorizationID(answers.random.bytes(32)), clientID: client.id,
            redirectURI: redirectURI, scope: scope.joined(separator: " "), state: state, resource: nonEmpty(request.resource),
            challenge: challenge, nonce: nonEmpty(request.nonce), createdAt: now,
            expiresAt: now.addingTimeInterval(Double(settings.authorizationTTL)))
        try await store.insertOAuthAuthorization(authorization)
        return Self.redirect(consentPage, [("authorization_id", authorization.authorizationID)])
    }

    /// What is wrong with the request's other parameters, as an OAuth error and its description.
    func invalidParameters(_ request: OAuthAuthorizeRequest, client: OAuthClientRecord) -> (error: String, description: String)? {
        let responseType = nonEmpty(request.responseType) ?? "code"
        if responseType != "code" { return ("unsupported_response_type", "only response_type=code is supported") }
        if !client.grantTypes.contains("authorization_code") {
            return ("unauthorized_client", "the client may not use the authorization code grant")
        }
        if (request.state?.utf8.count ?? 0) > 2048 { return ("invalid_request", "state is longer than 2048 bytes") }
        if (request.nonce?.utf8.count ?? 0) > 512 { return ("invalid_request", "nonce is longer than 512 bytes") }
        if (request.scope?.utf8.count ?? 0) > 512 { return ("invalid_scope", "scope is longer than 512 bytes") }
        if let resource = nonEmpty(request.resource), let problem = Self.resourceProblem(resource) {
            return ("invalid_target", problem)
        }
        return nil
    }

    /// Why `resource` is not a resource indicator (RFC 8707 §2: an absolute URI without a
    /// fragment; GoTrue also refuses a query), or `nil`.
    static func resourceProblem(_ resource: String) -> String? {
        // Read by the redirect rules' strict parser (Foundation's stops the process on some text).
        guard let url = RedirectURL(resource), url.host != nil else { return "resource must be an absolute URI" }
        if url.fragment != nil || resource.contains("#") { return "resource must not include a fragment component" }
        if url.query != nil { return "resource must not include a query component" }
        return nil
    }

    /// 32 letters and digits from 32 random bytes (each byte mod 62: slightly uneven, still
    /// over 180 bits).
    static func authorizationID(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        return String(bytes.prefix(32).map { alphabet[Int($0) % alphabet.count] })
    }

    func nonEmpty(_ text: String?) -> String? { text.flatMap { $0.isEmpty ? nil : $0 } }
}
