import Foundation

/// `POST /token?grant_type=id_token`: sign in with an OpenID Connect id token a provider issued
/// to the app (Sign in with Apple, Google Sign-In, …).
public struct IDTokenGrantRequest: Codable, Sendable, Equatable {
    /// `apple`, `google`, `azure`, `keycloak`, or `custom:<name>` (`provider`).
    public var provider: String?
    /// The id token, as the provider's SDK returned it (`id_token`).
    public var idToken: String?
    /// The access token issued with it, checked against the token's `at_hash` (`access_token`).
    public var accessToken: String?
    /// The raw nonce whose SHA-256 (hex) the app gave the provider (`nonce`).
    public var nonce: String?
    /// With no `provider`: the issuer, naming the provider by its issuer URL (`issuer`).
    public var issuer: String?
    /// With no `provider`: the app's client id (`client_id`).
    public var clientID: String?
    /// Link the identity to the signed-in user (the request's bearer token) instead of signing
    /// in (`link_identity`).
    public var linkIdentity: Bool?
    /// Metadata for a new user, e.g. the name Sign in with Apple gives the app only on the first
    /// sign-in (`data`, a Latchkey extension; GoTrue ignores it).
    public var data: [String: JSONValue]?
    /// Sign in with Apple's `authorizationCode`, which the server exchanges for Apple's refresh
    /// token, kept sealed so that deleting the account revokes the app's access at Apple
    /// (`authorization_code`, a Latchkey extension; GoTrue ignores it).
    public var authorizationCode: String?

    /// Creates an id-token grant.
    public init(
        provider: String?, idToken: String?, accessToken: String? = nil, nonce: String? = nil, issuer: String? = nil,
        clientID: String? = nil, linkIdentity: Bool? = nil, data: [String: JSONValue]? = nil, authorizationCode: String? = nil
    ) {
        self.authorizationCode = authorizationCode
        self.provider = provider
        self.idToken = idToken
        self.accessToken = accessToken
        self.nonce = nonce
        self.issuer = issuer
        self.clientID = clientID
        self.linkIdentity = linkIdentity
        self.data = data
    }

    enum CodingKeys: String, CodingKey {
        case provider
        case idToken = "id_token"
        case accessToken = "access_token"
        case nonce
        case issuer
        case clientID = "client_id"
        case linkIdentity = "link_identity"
        case data
        case authorizationCode = "authorization_code"
    }
}
