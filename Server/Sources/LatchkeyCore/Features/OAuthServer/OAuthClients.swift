import Crypto
import Foundation
import LatchkeyAPI

/// The clients of Latchkey's OAuth 2.1 server (#40), as GoTrue manages them: operators register
/// them at `/admin/oauth/clients` (`manual`), and, when allowed, applications register themselves
/// at `/oauth/clients/register` (RFC 7591, `dynamic`). A confidential client gets a 256-bit secret,
/// shown once and stored as its SHA-256 (a random secret needs no slow hash); a public one has
/// none and must use PKCE. Redirect URIs are absolute, without a fragment, `http` only on a
/// loopback host, never a script scheme, and later matched exactly.
public struct OAuthClients: Sendable {
    public struct Settings: Sendable {
        /// `GOTRUE_OAUTH_SERVER_ENABLED`: off, every route answers `404 feature_disabled`.
        public var enabled: Bool
        /// `GOTRUE_OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION`.
        public var dynamicRegistration: Bool
        /// Dynamic registrations per client IP (`GOTRUE_RATE_LIMIT_O_AUTH_DYNAMIC_CLIENT_REGISTER`, per 5 minutes).
        public var registrationsPerIP: RateLimit

        public init(
            enabled: Bool = false, dynamicRegistration: Bool = false, registrationsPerIP: RateLimit = RateLimit(count: 10, period: 300)
        ) {
            self.enabled = enabled
            self.dynamicRegistration = dynamicRegistration
            self.registrationsPerIP = registrationsPerIP
        }
    }

    let store: any OAuthClientStore
    let limiter: RateLimiter
    let settings: Settings
    let time: any TimeSource
    let random: any RandomSource

    public init(store: any OAuthClientStore, limiter: RateLimiter, settings: Settings, time: any TimeSource, random: any RandomSource) {
        self.store = store
        self.limiter = limiter
        self.settings = settings
        self.time = time
        self.random = random
    }

    var events: AuditEvents { AuditEvents(time: time, random: random) }

    /// An audit event about `client` (the operator or the registering address from the request).
    func event(_ action: AuditAction, _ client: OAuthClientRecord, _ details: [String: JSONValue] = [:], from: ClientInfo? = nil)
        -> AuditEvent
    {
        var all = details
        all["client_id"] = .string(client.id.lowercasedString)
        if let name = client.name { all["client_name"] = .string(name) }
        return events.event(action, userID: nil, name: nil, details: all, client: from)
    }

    static let grantTypes = ["authorization_code", "refresh_token"]
    static let authMethods = ["none", "client_secret_basic", "client_secret_post"]

    /// `404 feature_disabled` while the OAuth server is off: the first answer of every route.
    public func requireEnabled() throws {
        guard settings.enabled else {
            var error = AuthError(.featureDisabled, "OAuth server is disabled")
            error.status = 404
            throw error
        }
    }

    static let notFound: AuthError = {
        var error = AuthError(.oauthClientNotFound, "OAuth client not found")
        error.status = 404
        return error
    }()

    /// `POST /admin/oauth/clients` (`manual`) or `POST /oauth/clients/register` (`dynamic`, when
    /// allowed, within its per-IP limit): the new client, with its secret when confidential.
    public func register(_ request: OAuthClientRequest, dynamic: Bool, client: ClientInfo? = nil) async throws -> OAuthClient {
        try requireEnabled()
        if dynamic {
            guard settings.dynamicRegistration else {
                var error = AuthError(.oauthDynamicClientRegistrationDisabled, "Dynamic client registration is not enabled")
                error.status = 403
                throw error
            }
            try await limiter.hit("ip:oauth-register:\(client?.limitKey ?? "")", settings.registrationsPerIP)
        }
        guard let redirects = request.redirectURIs else { throw AuthError.validation("redirect_uris is required") }
        try Self.checkRedirectURIs(redirects)
        let grants = request.grantTypes ?? Self.grantTypes
        try Self.checkGrantTypes(grants)
        try Self.checkDescription(name: request.clientName, uri: request.clientURI, logo: request.logoURI)
        let type = try Self.clientType(request.clientType, method: request.tokenEndpointAuthMethod)
        let method = request.tokenEndpointAuthMethod ?? (type == "public" ? "none" : "client_secret_basic")
        let now = time.now()
        let secret = type == "confidential" ? newSecret() : nil
        let record = OAuthClientRecord(
            id: random.uuid(), secretHash: secret.map(Self.hash), registrationType: dynamic ? "dynamic" : "manual", clientType: type,
            tokenEndpointAuthMethod: method, redirectURIs: redirects, grantTypes: grants, name: Self.blankIsNil(request.clientName),
            uri: Self.blankIsNil(request.clientURI), logoURI: Self.blankIsNil(request.logoURI), createdAt: now, updatedAt: now)
        try await store.insertOAuthClient(
            record,
            audit: [
                event(
                    .oauthClientCreated, record, ["registration_type": .string(record.registrationType), "client_type": .string(type)],
                    from: client)
            ])
        var answer = Self.wire(record)
        answer.clientSecret = secret
        return answer
    }

    /// `GET /admin/oauth/clients`.
    public func list() async throws -> OAuthClientList {
        try requireEnabled()
        return OAuthClientList(clients: try await store.oauthClients().map(Self.wire))
    }

    /// `GET /admin/oauth/clients/{client_id}`.
    public func get(_ raw: String) async throws -> OAuthClient {
        Self.wire(try await existing(raw))
    }

    /// `PUT /admin/oauth/clients/{client_id}`: the fields given, checked as at registration. The
    /// client's type stays; its auth method may change within that type.
    public func update(_ raw: String, _ request: OAuthClientRequest) async throws -> OAuthClient {
        var client = try await existing(raw)
        let seen = client.updatedAt
        guard request != OAuthClientRequest() else { throw AuthError.validation("No fields provided for update") }
        if request.clientType != nil, request.clientType != client.clientType {
            throw AuthError.validation("client_type cannot be changed")
        }
        if let redirects = request.redirectURIs {
            try Self.checkRedirectURIs(redirects)
            client.redirectURIs = redirects
        }
        if let grants = request.grantTypes {
            try Self.checkGrantTypes(grants)
            client.grantTypes = grants
        }
        try Self.checkDescription(name: request.clientName, uri: request.clientURI, logo: request.logoURI)
        if let name = request.clientName { client.name = Self.blankIsNil(name) }
        if let uri = request.clientURI { client.uri = Self.blankIsNil(uri) }
        if let logo = request.logoURI { client.logoURI = Self.blankIsNil(logo) }
        if let method = request.tokenEndpointAuthMethod {
            guard try Self.clientType(client.clientType, method: method) == client.clientType else {
                throw AuthError.validation("token_endpoint_auth_method does not suit a \(client.clientType) client")
            }
            client.tokenEndpointAuthMethod = method
        }
        client.updatedAt = max(time.now(), seen.addingTimeInterval(0.002))
        // The names of the fields given, never their values.
        let fields = [
            ("redirect_uris", request.redirectURIs != nil), ("grant_types", request.grantTypes != nil),
            ("client_name", request.clientName != nil), ("client_uri", request.clientURI != nil), ("logo_uri", request.logoURI != nil),
            ("token_endpoint_auth_method", request.tokenEndpointAuthMethod != nil),
        ].filter(\.1).map { JSONValue.string($0.0) }
        guard
            try await store.updateOAuthClient(
                client, ifUpdatedAt: seen, audit: [event(.oauthClientUpdated, client, ["fields": .array(fields)])])
        else {
            throw AuthError(.conflict, "The client changed meanwhile: read it again")
        }
        return Self.wire(client)
    }

    /// `DELETE /admin/oauth/clients/{client_id}`: kept, marked deleted.
    public func delete(_ raw: String) async throws {
        let client = try await existing(raw)
        guard try await store.deleteOAuthClient(id: client.id, at: time.now(), audit: [event(.oauthClientDeleted, client)]) else {
            throw Self.notFound
        }
    }

    /// `POST /admin/oauth/clients/{client_id}/regenerate_secret`: a confidential client's new
    /// secret, shown this once; the old one stops working.
    public func regenerateSecret(_ raw: String) async throws -> OAuthClient {
        var client = try await existing(raw)
        guard client.clientType == "confidential" else { throw AuthError.validation("Cannot regenerate secret for public client") }
        let seen = client.updatedAt
        let secret = newSecret()
        client.secretHash = Self.hash(secret)
        client.updatedAt = max(time.now(), seen.addingTimeInterval(0.002))
        guard try await store.updateOAuthClient(client, ifUpdatedAt: seen, audit: [event(.oauthClientSecretRegenerated, client)]) else {
            throw AuthError(.conflict, "The client changed meanwhile: try again")
        }
        var answer = Self.wire(client)
        answer.clientSecret = secret
        return answer
    }

    /// Whether `secret` is the client's, in constant time.
    public static func secretMatches(_ secret: String, _ client: OAuthClientRecord) -> Bool {
        guard let stored = client.secretHash, let expected = Base64URL.decode(stored) else { return false }
        return ConstantTime.equal(Array(SHA256.hash(data: Array(secret.utf8))), expected)
    }

    func existing(_ raw: String) async throws -> OAuthClientRecord {
        try requireEnabled()
        guard let id = UUID(text: raw) else { throw AuthError.validation("invalid client_id format") }
        guard let client = try await store.oauthClient(id: id) else { throw Self.notFound }
        return client
    }

    func newSecret() -> String { Base64URL.encode(random.bytes(32)) }

    static func hash(_ secret: String) -> String { Base64URL.encode(Array(SHA256.hash(data: Array(secret.utf8)))) }

    static func blankIsNil(_ text: String?) -> String? { text.flatMap { $0.isEmpty ? nil : $0 } }

    /// GoTrue's rule: an explicit type, else `public` for the `none` method, else `confidential`;
    /// a type and a method that contradict each other are refused.
    static func clientType(_ type: String?, method: String?) throws -> String {
        if let type, type != "public", type != "confidential" {
            throw AuthError.validation("client_type must be 'public' or 'confidential'")
        }
        if let method, !authMethods.contains(method) {
            throw AuthError.validation("token_endpoint_auth_method must be one of: none, client_secret_basic, client_secret_post")
        }
        switch (type, method) {
        case ("public", let method?) where method != "none":
            throw AuthError.validation("public clients must use token_endpoint_auth_method 'none'")
        case ("confidential", "none"):
            throw AuthError.validation("confidential clients cannot use token_endpoint_auth_method 'none'")
        case (let type?, _): return type
        case (nil, "none"): return "public"
        case (nil, _): return "confidential"
        }
    }

    static func checkGrantTypes(_ grants: [String]) throws {
        guard !grants.isEmpty, grants.allSatisfy(grantTypes.contains) else {
            throw AuthError.validation("grant_types must only contain 'authorization_code' and/or 'refresh_token'")
        }
    }

    static func checkDescription(name: String?, uri: String?, logo: String?) throws {
        if let name, name.count > 1024 { throw AuthError.validation("client_name cannot exceed 1024 characters") }
        for (field, value) in [("client_uri", uri), ("logo_uri", logo)] {
            guard let value, !value.isEmpty else { continue }
            guard value.count <= 2048, let url = URLComponents(string: value), let scheme = url.scheme?.lowercased(),
                scheme == "https" || scheme == "http", url.host?.isEmpty == false
            else { throw AuthError.validation("\(field) must be a valid http(s) URL of at most 2048 characters") }
        }
    }

    /// One to ten redirect URIs, each absolute with a host, no fragment, no credentials, `http`
    /// only to a loopback host, and no scheme that runs or reads something in the browser.
    static func checkRedirectURIs(_ uris: [String]) throws {
        guard !uris.isEmpty else { throw AuthError.validation("redirect_uris cannot be empty") }
        guard uris.count <= 10 else { throw AuthError.validation("redirect_uris cannot exceed 10 items") }
        for uri in uris {
            if let reason = redirectRefusal(uri) { throw AuthError.validation("invalid redirect_uri '\(uri)': \(reason)") }
        }
    }

    static func redirectRefusal(_ uri: String) -> String? {
        guard uri.count <= 2048, !uri.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F || $0 == "\\" }),
            let url = URLComponents(string: uri), let scheme = url.scheme?.lowercased()
        else { return "not a URL" }
        if ["javascript", "data", "file", "vbscript", "about", "blob"].contains(scheme) {
            return "scheme '\(scheme)' is not allowed for security reasons"
        }
        guard let host = url.host, !host.isEmpty else { return "must have scheme and host" }
        if url.fragment != nil { return "fragment not allowed in redirect URI" }
        if url.user != nil || url.password != nil { return "credentials not allowed in redirect URI" }
        if scheme == "http", !["localhost", "127.0.0.1", "::1", "[::1]"].contains(host.lowercased()) {
            return "HTTP scheme only allowed for localhost"
        }
        return nil
    }

    static func wire(_ record: OAuthClientRecord) -> OAuthClient {
        OAuthClient(
            clientID: record.id, clientType: record.clientType, redirectURIs: record.redirectURIs,
            tokenEndpointAuthMethod: record.tokenEndpointAuthMethod, grantTypes: record.grantTypes, clientName: record.name,
            clientURI: record.uri, logoURI: record.logoURI, registrationType: record.registrationType, createdAt: record.createdAt,
            updatedAt: record.updatedAt)
    }
}
