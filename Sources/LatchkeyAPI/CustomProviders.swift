import Foundation

/// A custom OpenID provider, as GoTrue's admin API shows it (`/admin/custom-providers`); the
/// client secret is never shown.
public struct CustomProvider: Codable, Sendable, Equatable {
    public var id: UUID
    /// Always `oidc` (Latchkey serves OpenID providers only).
    public var providerType: String
    /// `custom:<name>`.
    public var identifier: String
    public var name: String
    public var clientID: String
    public var acceptableClientIDs: [String]
    public var scopes: [String]
    public var pkceEnabled: Bool
    public var enabled: Bool
    public var emailOptional: Bool
    public var issuer: String
    public var skipNonceCheck: Bool
    public var createdAt: Date
    public var updatedAt: Date

    /// Creates a provider description.
    public init(
        id: UUID, identifier: String, name: String, clientID: String, acceptableClientIDs: [String], scopes: [String],
        pkceEnabled: Bool, enabled: Bool, emailOptional: Bool, issuer: String, skipNonceCheck: Bool, createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.providerType = "oidc"
        self.identifier = identifier
        self.name = name
        self.clientID = clientID
        self.acceptableClientIDs = acceptableClientIDs
        self.scopes = scopes
        self.pkceEnabled = pkceEnabled
        self.enabled = enabled
        self.emailOptional = emailOptional
        self.issuer = issuer
        self.skipNonceCheck = skipNonceCheck
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case id
        case providerType = "provider_type"
        case identifier, name
        case clientID = "client_id"
        case acceptableClientIDs = "acceptable_client_ids"
        case scopes
        case pkceEnabled = "pkce_enabled"
        case enabled
        case emailOptional = "email_optional"
        case issuer
        case skipNonceCheck = "skip_nonce_check"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }
}

/// `POST /admin/custom-providers` and `PUT /admin/custom-providers/{identifier}`: absent fields
/// keep their value on an update.
public struct CustomProviderRequest: Codable, Sendable, Equatable {
    public var providerType: String?
    public var identifier: String?
    public var name: String?
    public var clientID: String?
    public var clientSecret: String?
    public var acceptableClientIDs: [String]?
    public var scopes: [String]?
    public var pkceEnabled: Bool?
    public var enabled: Bool?
    public var emailOptional: Bool?
    public var issuer: String?
    public var skipNonceCheck: Bool?

    /// Creates a request.
    public init(
        providerType: String? = "oidc", identifier: String? = nil, name: String? = nil, clientID: String? = nil,
        clientSecret: String? = nil, acceptableClientIDs: [String]? = nil, scopes: [String]? = nil, pkceEnabled: Bool? = nil,
        enabled: Bool? = nil, emailOptional: Bool? = nil, issuer: String? = nil, skipNonceCheck: Bool? = nil
    ) {
        self.providerType = providerType
        self.identifier = identifier
        self.name = name
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.acceptableClientIDs = acceptableClientIDs
        self.scopes = scopes
        self.pkceEnabled = pkceEnabled
        self.enabled = enabled
        self.emailOptional = emailOptional
        self.issuer = issuer
        self.skipNonceCheck = skipNonceCheck
    }

    enum CodingKeys: String, CodingKey {
        case providerType = "provider_type"
        case identifier, name
        case clientID = "client_id"
        case clientSecret = "client_secret"
        case acceptableClientIDs = "acceptable_client_ids"
        case scopes
        case pkceEnabled = "pkce_enabled"
        case enabled
        case emailOptional = "email_optional"
        case issuer
        case skipNonceCheck = "skip_nonce_check"
    }
}

/// `GET /admin/custom-providers`.
public struct CustomProviderList: Codable, Sendable, Equatable {
    public var providers: [CustomProvider]
    public init(providers: [CustomProvider]) { self.providers = providers }
}
