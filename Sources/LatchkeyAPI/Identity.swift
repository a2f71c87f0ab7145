import Foundation

/// One way a user signs in (GoTrue's identity object). `identityID` is the row's id and `id` is
/// the provider's subject; for the email provider that is the user's id.
public struct Identity: Codable, Sendable, Equatable {
    public var identityID: UUID
    public var id: String
    public var userID: UUID
    public var identityData: [String: JSONValue]
    public var provider: String
    public var email: String?
    public var lastSignInAt: Date?
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        identityID: UUID, id: String, userID: UUID, identityData: [String: JSONValue], provider: String,
        email: String? = nil, lastSignInAt: Date? = nil, createdAt: Date, updatedAt: Date
    ) {
        self.identityID = identityID
        self.id = id
        self.userID = userID
        self.identityData = identityData
        self.provider = provider
        self.email = email
        self.lastSignInAt = lastSignInAt
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, provider, email
        case identityID = "identity_id"
        case userID = "user_id"
        case identityData = "identity_data"
        case lastSignInAt = "last_sign_in_at"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(identityID.uuidString.lowercased(), forKey: .identityID)
        try c.encode(id, forKey: .id)
        try c.encode(userID.uuidString.lowercased(), forKey: .userID)
        try c.encode(identityData, forKey: .identityData)
        try c.encode(provider, forKey: .provider)
        try c.encodeIfPresent(email, forKey: .email)
        try c.encodeIfPresent(lastSignInAt, forKey: .lastSignInAt)
        try c.encode(createdAt, forKey: .createdAt)
        try c.encode(updatedAt, forKey: .updatedAt)
    }
}

/// A multi-factor authenticator enrolled by a user.
public struct Factor: Codable, Sendable, Equatable {
    public var id: UUID
    public var friendlyName: String?
    public var factorType: String
    public var status: String
    public var createdAt: Date
    public var updatedAt: Date

    public init(id: UUID, friendlyName: String?, factorType: String, status: String, createdAt: Date, updatedAt: Date) {
        self.id = id
        self.friendlyName = friendlyName
        self.factorType = factorType
        self.status = status
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, status
        case friendlyName = "friendly_name"
        case factorType = "factor_type"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }
}
