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
        let endpoint = try await endpoints(for: provider).token
        let clientID = provider.clientIDs.first ?? ""
        var form: [(String, String)] = [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", oauth.redirectURI), ("client_id", clientID),
            ("client_secret", try await secret(oauth.secret, clientID: clientID)),
        ]
        if oauth.pkce, let verifier { form.append(("code_verifier", verifier)) }
        if let problem = await policy.problem(endpoint) { throw ProviderExchangeError(problem) }
        var request = HTTPClientRequest(url: endpoint)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        request.body = .bytes(ByteBuffer(string: FormEncoding.encode(form)))
        let response = try await client.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 20)
        let json = try? JSONDecoder().decode([String: JSONValue].self, from: Data(body.readableBytesView))
        guard response.status.code == 200, let accessToken = json?["access_token"]?.stringValue else {
            throw ProviderExchangeError("\(provider.name) token endpoint answered \(response.status.code): \(json?["error"] ?? "no JSON")")
        }
        return ProviderTokens(
            accessToken: accessToken, refreshToken: json?["refresh_token"]?.stringValue, idToken: json?["id_token"]?.stringValue)
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
        let found = Endpoints(authorization: authorization, token: token, fetchedAt: now)
        endpoints[issuer] = found
        return found
    }
}
