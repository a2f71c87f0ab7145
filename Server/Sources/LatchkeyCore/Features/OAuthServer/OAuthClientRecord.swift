import Foundation

/// A client of the OAuth 2.1 server as stored: its secret only as a hash.
public struct OAuthClientRecord: Sendable, Equatable {
    public var id: UUID
    /// SHA-256 of a confidential client's secret (base64url); `nil` for a public client.
    public var secretHash: String?
    /// `manual` or `dynamic`.
    public var registrationType: String
    /// `confidential` or `public`.
    public var clientType: String
    public var tokenEndpointAuthMethod: String
    public var redirectURIs: [String]
    public var grantTypes: [String]
    public var name: String?
    public var uri: String?
    public var logoURI: String?
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        id: UUID, secretHash: String?, registrationType: String, clientType: String, tokenEndpointAuthMethod: String,
        redirectURIs: [String], grantTypes: [String], name: String?, uri: String?, logoURI: String?, createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.secretHash = secretHash
        self.registrationType = registrationType
        self.clientType = clientType
        self.tokenEndpointAuthMethod = tokenEndpointAuthMethod
        self.redirectURIs = redirectURIs
        self.grantTypes = grantTypes
        self.name = name
        self.uri = uri
        self.logoURI = logoURI
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}
