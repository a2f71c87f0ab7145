import Foundation

/// A third-party application registered with Latchkey's OAuth 2.1 server (GoTrue's
/// `OAuthServerClientResponse`): `/admin/oauth/clients` and `/oauth/clients/register`.
public struct OAuthClient: Codable, Sendable, Equatable, Identifiable {
    /// The client's id (`client_id`).
    public var clientID: UUID
    /// Only in the answer that made the client or a new secret for it (`client_secret`); stored
    /// hashed, never shown again.
    public var clientSecret: String?
    /// `confidential` (a secret) or `public` (PKCE alone) (`client_type`).
    public var clientType: String
    /// Where authorization codes may go, matched exactly (`redirect_uris`).
    public var redirectURIs: [String]
    /// `client_secret_basic`, `client_secret_post` or `none` (`token_endpoint_auth_method`).
    public var tokenEndpointAuthMethod: String
    /// `authorization_code` and/or `refresh_token` (`grant_types`).
    public var grantTypes: [String]
    /// Always `["code"]` (`response_types`).
    public var responseTypes: [String]
    public var clientName: String?
    public var clientURI: String?
    public var logoURI: String?
    /// `manual` (an operator's) or `dynamic` (RFC 7591) (`registration_type`).
    public var registrationType: String
    public var createdAt: Date
    public var updatedAt: Date

    public var id: UUID { clientID }

    /// Creates a client's description.
    public init(
        clientID: UUID, clientSecret: String? = nil, clientType: String, redirectURIs: [String], tokenEndpointAuthMethod: String,
        grantTypes: [String], clientName: String?, clientURI: String?, logoURI: String?, registrationType: String, createdAt: Date,
        updatedAt: Date
    ) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.clientType = clientType
        self.redirectURIs = redirectURIs
        self.tokenEndpointAuthMethod = tokenEndpointAuthMethod
        self.grantTypes = grantTypes
        self.responseTypes = ["code"]
        self.clientName = clientName
        self.clientURI = clientURI
        self.logoURI = logoURI
        self.registrationType = registrationType
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case clientID = "client_id"
        case clientSecret = "client_secret"
        case clientType = "client_type"
        case redirectURIs = "redirect_uris"
        case tokenEndpointAuthMethod = "token_endpoint_auth_method"
        case grantTypes = "grant_types"
        case responseTypes = "response_types"
        case clientName = "client_name"
        case clientURI = "client_uri"
        case logoURI = "logo_uri"
        case registrationType = "registration_type"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeLowercased(clientID, forKey: .clientID)
        try c.encodeIfPresent(clientSecret, forKey: .clientSecret)
        try c.encode(clientType, forKey: .clientType)
        try c.encode(redirectURIs, forKey: .redirectURIs)
        try c.encode(tokenEndpointAuthMethod, forKey: .tokenEndpointAuthMethod)
        try c.encode(grantTypes, forKey: .grantTypes)
        try c.encode(responseTypes, forKey: .responseTypes)
        try c.encodeIfPresent(clientName, forKey: .clientName)
        try c.encodeIfPresent(clientURI, forKey: .clientURI)
        try c.encodeIfPresent(logoURI, forKey: .logoURI)
        try c.encode(registrationType, forKey: .registrationType)
        try c.encode(createdAt, forKey: .createdAt)
        try c.encode(updatedAt, forKey: .updatedAt)
    }
}

/// `GET /admin/oauth/clients`'s answer: every client, newest first.
public struct OAuthClientList: Codable, Sendable, Equatable {
    public var clients: [OAuthClient]

    public init(clients: [OAuthClient]) { self.clients = clients }
}

/// The body of `POST /admin/oauth/clients`, `POST /oauth/clients/register` (RFC 7591's metadata)
/// and `PUT /admin/oauth/clients/{client_id}` (only the fields given change; `client_type` is
/// fixed at registration).
public struct OAuthClientRequest: Codable, Sendable, Equatable {
    public var redirectURIs: [String]?
    public var clientType: String?
    public var tokenEndpointAuthMethod: String?
    public var grantTypes: [String]?
    public var clientName: String?
    public var clientURI: String?
    public var logoURI: String?

    public init(
        redirectURIs: [String]? = nil, clientType: String? = nil, tokenEndpointAuthMethod: String? = nil, grantTypes: [String]? = nil,
        clientName: String? = nil, clientURI: String? = nil, logoURI: String? = nil
    ) {
        self.redirectURIs = redirectURIs
        self.clientType = clientType
        self.tokenEndpointAuthMethod = tokenEndpointAuthMethod
        self.grantTypes = grantTypes
        self.clientName = clientName
        self.clientURI = clientURI
        self.logoURI = logoURI
    }

    enum CodingKeys: String, CodingKey {
        case clientType = "client_type"
        case redirectURIs = "redirect_uris"
        case tokenEndpointAuthMethod = "token_endpoint_auth_method"
        case grantTypes = "grant_types"
        case clientName = "client_name"
        case clientURI = "client_uri"
        case logoURI = "logo_uri"
    }
}
