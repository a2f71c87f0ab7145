import Foundation
import LatchkeyAPI

/// The parameters of `POST /oauth/token`, from its form (or JSON) body and its `Authorization:
/// Basic` header.
public struct OAuthTokenRequest: Sendable {
    public var grantType: String?
    public var code: String?
    public var refreshToken: String?
    public var redirectURI: String?
    public var clientID: String?
    public var clientSecret: String?
    public var codeVerifier: String?
    public var resource: String?
    /// The client's id and secret from `Authorization: Basic` (`client_secret_basic`).
    public var basic: (id: String, secret: String)?

    public init(
        grantType: String? = nil, code: String? = nil, refreshToken: String? = nil, redirectURI: String? = nil, clientID: String? = nil,
        clientSecret: String? = nil, codeVerifier: String? = nil, resource: String? = nil, basic: (id: String, secret: String)? = nil
    ) {
        self.grantType = grantType
        self.code = code
        self.refreshToken = refreshToken
        self.redirectURI = redirectURI
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.codeVerifier = codeVerifier
        self.resource = resource
        self.basic = basic
    }
}

extension OAuthServer {
    /// `POST /oauth/token`: the client authenticated as it registered (`client_secret_basic`,
    /// `client_secret_post`, or `none` for a public client), then its grant.
    public func token(_ request: OAuthTokenRequest, client: ClientInfo) async throws -> OAuthTokenResponse {
        try requireEnabled()
        guard let grantType = nonEmpty(request.grantType) else { throw Self.tokenError("invalid_request", "grant_type is required") }
        // The refresh grant counts the budget in its own transaction, as `/token`'s does.
        if grantType != "refresh_token" { try await limiter.hit([.tokenRequests(from: client, settings.tokenPerIP)]) }
        let registered = try await authenticateClient(request)
        guard OAuthClients.grantTypes.contains(grantType) else {
            throw Self.tokenError("unsupported_grant_type", "Unsupported grant type: \(grantType)")
        }
        guard registered.grantTypes.contains(grantType) else {
            throw Self.tokenError("unauthorized_client", "Client is not allowed to use grant type: \(grantType)")
        }
        if grantType == "refresh_token" { return try await refreshGrant(request, registered: registered, client: client) }
        return try await codeGrant(request, registered: registered, client: client)
    }

    /// The client the request authenticates, by the one method it registered.
    func authenticateClient(_ request: OAuthTokenRequest) async throws -> OAuthClientRecord {
        let method: String
        let id: String?
        let secret: String?
        if let basic = request.basic {
            (method, id, secret) = ("client_secret_basic", basic.id, basic.secret)
            if nonEmpty(request.clientSecret) != nil { throw Self.tokenError("invalid_request", "Client credentials given twice") }
            if let other = nonEmpty(request.clientID), other != basic.id {
                throw Self.tokenError("invalid_request", "client_id does not match the Authorization header")
            }
        } else if let posted = nonEmpty(request.clientSecret) {
            (method, id, secret) = ("client_secret_post", request.clientID, posted)
        } else {
            (method, id, secret) = ("none", request.clientID, nil)
        }
        guard let raw = nonEmpty(id) else { throw Self.tokenError("invalid_client", "Client authentication required") }
        guard let clientID = UUID(text: raw), let client = try await store.oauthClient(id: clientID) else {
            throw Self.tokenError("invalid_client", "Invalid client credentials")
        }
        guard client.tokenEndpointAuthMethod == method else {
            throw Self.tokenError(
                "invalid_client",
                "invalid authentication method: client is registered for '\(client.tokenEndpointAuthMethod)' but '\(method)' was used")
        }
        if client.clientType == "confidential" {
            guard let secret, OAuthClients.secretMatches(secret, client) else {
                throw Self.tokenError("invalid_client", "Invalid client credentials")
            }
        }
        return client
    }

    /// The `authorization_code` grant: the code spent once, by the client it was issued to, with
    /// the verifier of its challenge, for a new session of that client.
    func codeGrant(_ request: OAuthTokenRequest, registered: OAuthClientRecord, client: ClientInfo) async throws -> OAuthTokenResponse {
        guard let code = nonEmpty(request.code), code.utf8.count <= 256 else {
            throw Self.tokenError("invalid_request", "code is required for authorization_code grant")
        }
        guard let verifier = nonEmpty(request.codeVerifier) else {
            throw Self.tokenError("invalid_request", "code_verifier is required")
        }
        let now = time.now()
        let sessionID = answers.random.uuid()
        let salt = answers.random.bytes(32)
        let eventID = answers.random.uuid()
        let context = AuditContext.current
        let redirectURI = nonEmpty(request.redirectURI)
        let resource = nonEmpty(request.resource)
        let decide: @Sendable (OAuthAuthorizationRecord?, UserRecord?) -> OAuthCodeRedemption = { authorization, user in
            Self.redeem(
                authorization, user: user, client: registered.id, verifier: verifier, redirectURI: redirectURI, resource: resource,
                now: now, session: (sessionID, salt), request: client, context: context, eventID: eventID)
        }
        for _ in 0..<3 {
            guard let (redemption, user) = try await store.redeemOAuthCode(codeHash: OneTimeSecrets.linkHash(code), decide: decide) else {
                continue
            }
            switch redemption {
            case .refuse(let error), .revoke(_, _, let error):
                throw error
            case .issue(let authorization, let session, _):
                guard let user else { throw Self.tokenError("invalid_grant", "Invalid authorization code") }
                let answered = try await answers.answer(user: user, session: session)
                let idToken =
                    authorization.scopes.contains(OAuthScopes.openID)
                    ? try await self.idToken(user: user, session: session, client: registered.id, nonce: authorization.nonce) : nil
                return OAuthTokenResponse(
                    accessToken: answered.accessToken, expiresIn: answered.expiresIn, refreshToken: answered.refreshToken,
                    scope: authorization.scope, idToken: idToken)
            }
        }
        throw Self.tokenError("invalid_grant", "Invalid authorization code")
    }

    /// The code grant's decision on the request and user read in its transaction: a plain
    /// function of them and of values drawn before.
    static func redeem(
        _ authorization: OAuthAuthorizationRecord?, user: UserRecord?, client: UUID, verifier: String, redirectURI: String?,
        resource: String?, now: Date, session: (id: UUID, salt: [UInt8]), request: ClientInfo, context: AuditContext, eventID: UUID
    ) -> OAuthCodeRedemption {
        let invalid = tokenError("invalid_grant", "Invalid authorization code")
        guard let authorization else { return .refuse(invalid) }
        if authorization.status == .used {
            // RFC 6749 §4.1.2: a code used twice may have leaked; what it gave ends.
            let details: [String: JSONValue] = [
                "client_id": .string(authorization.clientID.lowercasedString),
                "session_id": authorization.sessionID.map { .string($0.lowercasedString) } ?? .null,
            ]
            let audit = [
                AuditEvent(
                    .oauthCodeReuse, userID: authorization.userID, name: user?.email ?? user?.phone, details: details, client: request,
                    context: context, id: eventID, at: now)
            ]
            return .revoke(sessionID: authorization.sessionID, audit: audit, tokenError("invalid_grant", "Authorization code already used"))
        }
        guard authorization.status == .approved, authorization.userID != nil else { return .refuse(invalid) }
        if authorization.expiresAt <= now { return .refuse(tokenError("invalid_grant", "Authorization code has expired")) }
        if authorization.clientID != client {
            return .refuse(tokenError("invalid_grant", "Authorization code was not issued for this client"))
        }
        if let redirectURI, redirectURI != authorization.redirectURI { return .refuse(tokenError("invalid_grant", "Invalid redirect_uri")) }
        if let resource, resource != authorization.resource {
            return .refuse(tokenError("invalid_target", "Authorization code resource does not match the resource parameter"))
        }
        guard (43...128).contains(verifier.count), PKCEVerifier.matches(verifier: verifier, challenge: authorization.challenge) else {
            return .refuse(tokenError("invalid_grant", "PKCE verification failed"))
        }
        guard let user, user.id == authorization.userID else { return .refuse(invalid) }
        if user.isBanned(at: now) { return .refuse(tokenError("invalid_grant", "User is banned")) }
        let newSession = SessionRecord(
            id: session.id, userID: user.id, aal: authorization.aal ?? "aal1", amr: authorization.amr, refreshSalt: session.salt,
            userAgent: request.userAgent, ip: request.ip, createdAt: now, updatedAt: now, oauthClientID: client,
            scopes: authorization.scope, resource: authorization.resource)
        var used = authorization
        used.status = .used
        used.sessionID = session.id
        let login = AuditEvent(
            .login, user: user,
            details: ["method": "oauth_authorization_code", "client_id": .string(client.lowercasedString)], client: request,
            context: context, id: eventID, at: now)
        return .issue(used, newSession, audit: [login])
    }

    /// The `refresh_token` grant for a session of this client (and of no other): rotation and
    /// reuse detection as for the app's own sessions.
    func refreshGrant(_ request: OAuthTokenRequest, registered: OAuthClientRecord, client: ClientInfo) async throws
        -> OAuthTokenResponse
    {
        guard let token = nonEmpty(request.refreshToken) else {
            throw Self.tokenError("invalid_request", "refresh_token is required for refresh_token grant")
        }
        let (answered, session) = try await refresh.refreshed(
            RefreshTokenGrantRequest(refreshToken: token), client: client, oauthClientID: registered.id)
        return OAuthTokenResponse(
            accessToken: answered.accessToken, expiresIn: answered.expiresIn, refreshToken: answered.refreshToken,
            scope: session.scopes ?? "", idToken: nil)
    }

    /// An OpenID Connect `id_token` for the client: `aud` the client, `nonce`, `auth_time` (the
    /// session's latest proof), `amr` and `acr` (the session's `aal`), `sid`, and the claims the
    /// scopes open, signed with the access tokens' key.
    func idToken(user: UserRecord, session: SessionRecord, client: UUID, nonce: String?) async throws -> String {
        let now = Int(time.now().timeIntervalSince1970)
        let scopes = OAuthScopes.parse(session.scopes ?? "")
        var claims = OAuthScopes.idTokenClaims(user, scopes: scopes)
        claims["iss"] = .string(issuer)
        claims["sub"] = .string(user.id.lowercasedString)
        claims["aud"] = .string(client.lowercasedString)
        claims["client_id"] = .string(client.lowercasedString)
        claims["iat"] = .number(Double(now))
        claims["exp"] = .number(Double(now + settings.idTokenLifetime))
        claims["auth_time"] = .number(Double(session.amr.map(\.timestamp).max() ?? now))
        claims["amr"] = .array(session.amr.map { .string($0.method) })
        claims["acr"] = .string(session.aal)
        claims["sid"] = .string(session.id.lowercasedString)
        if let nonce { claims["nonce"] = .string(nonce) }
        var signed = AccessTokenClaims()
        signed.custom = claims
        return try await answers.issuer.sign(signed)
    }
}
