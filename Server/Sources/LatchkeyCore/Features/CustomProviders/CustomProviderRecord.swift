import Foundation

/// A custom OpenID provider an operator added (`custom:<name>`), as stored: its client secret
/// sealed with a key from the server secret.
public struct CustomProviderRecord: Sendable, Equatable {
    public var id: UUID
    /// `custom:<name>`: what apps send as `provider`, and identities' `provider`.
    public var identifier: String
    public var name: String
    public var clientID: String
    public var sealedSecret: String
    /// More audiences an id token may carry (an iOS bundle id beside a web client id).
    public var acceptableClientIDs: [String]
    public var scopes: [String]
    public var pkceEnabled: Bool
    public var enabled: Bool
    public var emailOptional: Bool
    public var skipNonceCheck: Bool
    /// HTTPS (or HTTP on a loopback address).
    public var issuer: String
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        id: UUID, identifier: String, name: String, clientID: String, sealedSecret: String, acceptableClientIDs: [String],
        scopes: [String], pkceEnabled: Bool, enabled: Bool, emailOptional: Bool, skipNonceCheck: Bool, issuer: String, createdAt: Date,
        updatedAt: Date
    ) {
        self.id = id
        self.identifier = identifier
        self.name = name
        self.clientID = clientID
        self.sealedSecret = sealedSecret
        self.acceptableClientIDs = acceptableClientIDs
        self.scopes = scopes
        self.pkceEnabled = pkceEnabled
        self.enabled = enabled
        self.emailOptional = emailOptional
        self.skipNonceCheck = skipNonceCheck
        self.issuer = issuer
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}
