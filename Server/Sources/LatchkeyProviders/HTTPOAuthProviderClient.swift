import AsyncHTTPClient
import Foundation
import LatchkeyAPI
import LatchkeyCore
import NIOCore
import NIOHTTP1

/// ``OAuthProviderClient`` over HTTP: endpoints from the provider's OpenID discovery document
/// (kept for an hour), the code exchanged with `client_secret_post` (what Apple requires and every
/// other provider accepts), Apple's client secret made by ``AppleClientSecret``.
public actor HTTPOAuthProviderClient: OAuthProviderClient {
    struct Endpoints {
        var authorization: String
        var token: String
        /// RFC 7009's, when the discovery document names one (`revocation_endpoint`).
        var revocation: String? = nil
        var fetchedAt: Date
    }

    let fetcher: any DocumentFetching
    let client: HTTPClient
    let time: any TimeSource
    /// Where the token and user endpoints may be.
    let policy: OutboundPolicy
    private var endpoints: [String: Endpoints] = [:]
    private var appleSecrets: [String: AppleClientSecret] = [:]

    public init(
        fetcher: any DocumentFetching, client: HTTPClient = .shared, time: any TimeSource, policy: OutboundPolicy = OutboundPolicy()
    ) {
        self.policy = policy
        self.fetcher = fetcher
        self.client = client
        self.time = time
    }

    public func authorizationEndpoint(for provider: IdentityProvider) async throws -> String {
        try await endpoints(for: provider).authorization
    }

    public func exchange(code: String, verifier: String?, provider: IdentityProvider) async throws -> ProviderTokens {
        guard let oauth = provider.oauth else { throw ProviderExchangeError("\(provider.name) has no client secret") }
        let clientID = provider.clientIDs.first ?? ""
        var form: [(String, String)] = [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", oauth.redirectURI), ("client_id", clientID),
            ("client_secret", try await secret(oauth.secret, clientID: clientID)),
        ]
        if oauth.pkce, let verifier { form.append(("code_verifier", verifier)) }
        return try await tokens(form, provider: provider)
    }

    /// Apple's code from an app: `client_id` the app's bundle id, the client secret made for it,
    /// no `redirect_uri` (none took place).
    public func exchangeNativeCode(_ code: String, clientID: String, provider: IdentityProvider) async throws -> ProviderTokens {
        guard let oauth = provider.oauth else { throw ProviderExchangeError("\(provider.name) has no client secret") }
        let form: [(String, String)] = [
            ("grant_type", "authorization_code"), ("code", code), ("client_id", clientID),
            ("client_secret", try await secret(oauth.secret, clientID: clientID)),
        ]
        return try await tokens(form, provider: provider)
    }

    /// RFC 7009 at the provider's `revocation_endpoint`, authenticated as `clientID` (Apple's
    /// `/auth/revoke`); any 200 is done, as the RFC says of tokens already revoked.
    public func revoke(refreshToken: String, clientID: String, provider: IdentityProvider) async throws {
        guard let oauth = provider.oauth else { throw ProviderExchangeError("\(provider.name) has no client secret") }
        guard let endpoint = try await endpoints(for: provider).revocation else {
            throw ProviderExchangeError("\(provider.name) names no revocation endpoint")
        }
        let form: [(String, String)] = [
            ("client_id", clientID), ("client_secret", try await secret(oauth.secret, clientID: clientID)), ("token", refreshToken),
            ("token_type_hint", "refresh_token"),
        ]
        let response = try await post(form, to: endpoint)
        guard response.status == 200 else { throw ProviderExchangeError("\(provider.name) revocation answered \(response.status)") }
    }

    /// Posts `form` to the token endpoint and reads the tokens.
    func tokens(_ form: [(String, String)], provider: IdentityProvider) async throws -> ProviderTokens {
        let endpoint = try await endpoints(for: provider).token
        let (status, json) = try await post(form, to: endpoint)
        guard status == 200, let accessToken = json?["access_token"]?.stringValue else {
            throw ProviderExchangeError("\(provider.name) token endpoint answered \(status): \(json?["error"] ?? "no JSON")")
        }
        return ProviderTokens(
            accessToken: accessToken, refreshToken: json?["refresh_token"]?.stringValue, idToken: json?["id_token"]?.stringValue)
    }

    /// Posts a form where the outbound policy allows; the status and the JSON answered, if any.
    func post(_ form: [(String, String)], to endpoint: String) async throws -> (status: UInt, json: [String: JSONValue]?) {
        if let problem = await policy.problem(endpoint) { throw ProviderExchangeError(problem) }
        var request = HTTPClientRequest(url: endpoint)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        request.body = .bytes(ByteBuffer(string: FormEncoding.encode(form)))
        let response = try await client.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (response.status.code, try? JSONDecoder().decode([String: JSONValue].self, from: Data(body.readableBytesView)))
    }

    public func user(accessToken: String, provider: IdentityProvider) async throws -> ProviderUser {
        guard let api = provider.oauth?.endpoints?.api else { throw ProviderExchangeError("\(provider.name) has no user API") }
        let profile = try await get(api + "/user", accessToken: accessToken)
        let emails = try await get(api + "/user/emails", accessToken: accessToken).arrayValue ?? []
        return try GitHubUser.read(profile: profile.objectValue ?? [:], emails: emails, api: api)
    }

    /// A JSON document from the provider's API, with the user's access token.
    func get(_ url: String, accessToken: String) async throws -> JSONValue {
        if let problem = await policy.problem(url) { throw ProviderExchangeError(problem) }
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Authorization", value: "Bearer \(accessToken)")
        request.headers.add(name: "Accept", value: "application/vnd.github+json")
        request.headers.add(name: "User-Agent", value: "Latchkey")
        let response = try await client.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 20)
        guard response.status.code == 200 else { throw ProviderExchangeError("\(url) answered \(response.status.code)") }
        return try JSONDecoder().decode(JSONValue.self, from: Data(body.readableBytesView))
    }

    /// The client secret: as configured, or Apple's JWT, made again a day before it expires.
    func secret(_ secret: OAuthClientSettings.Secret, clientID: String) async throws -> String {
        switch secret {
        case .fixed(let value): return value
        case .apple(let teamID, let keyID, let pem):
            let now = time.now()
            if let cached = appleSecrets[clientID], cached.expiresAt.timeIntervalSince(now) > 86_400 { return cached.token }
            let made = try await AppleClientSecret.make(teamID: teamID, keyID: keyID, privateKeyPEM: pem, clientID: clientID, now: now)
            appleSecrets[clientID] = made
            return made.token
        }
    }

    func endpoints(for provider: IdentityProvider) async throws -> Endpoints {
        if let fixed = provider.oauth?.endpoints {
            return Endpoints(
                authorization: fixed.web + "/login/oauth/authorize", token: fixed.web + "/login/oauth/access_token", fetchedAt: time.now())
        }
        guard let issuer = provider.discoveryIssuer else { throw ProviderExchangeError("\(provider.name) has no issuer") }
        let now = time.now()
        if let cached = endpoints[issuer], now.timeIntervalSince(cached.fetchedAt) < 3600 { return cached }
        guard IssuerURL.isAcceptable(issuer) else { throw ProviderExchangeError("\(issuer) is not HTTPS") }
        let data = try await fetcher.document(at: IssuerURL.discovery(for: issuer))
        let document = try JSONDecoder().decode([String: JSONValue].self, from: data)
        guard let authorization = document["authorization_endpoint"]?.stringValue,
            IssuerURL.isAcceptable(authorization, namedBy: issuer),
            let token = document["token_endpoint"]?.stringValue, IssuerURL.isAcceptable(token, namedBy: issuer)
        else { throw ProviderExchangeError("\(issuer): the discovery document lacks acceptable endpoints") }
        let revocation = document["revocation_endpoint"]?.stringValue.flatMap {
            IssuerURL.isAcceptable($0, namedBy: issuer) ? $0 : nil
        }
        let found = Endpoints(authorization: authorization, token: token, revocation: revocation, fetchedAt: now)
        endpoints[issuer] = found
        return found
    }
}
