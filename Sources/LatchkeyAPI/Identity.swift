import Foundation

/// One way a user signs in (GoTrue's identity object). `identityID` is the row's id and `id` is
/// the provider's subject; for the email provider that is the user's id.
public struct Identity: Codable, Sendable, Equatable {
    /// The identity row's id (`identity_id`).
    public var identityID: UUID
    /// The provider's subject for the user; for `email`, the user's id (`id`).
    public var id: String
    /// The id of the user the identity belongs to (`user_id`).
    public var userID: UUID
    /// What the provider knows about the user, e.g. `sub`, `email`, `email_verified` (`identity_data`).
    public var identityData: [String: JSONValue]
    /// The provider's name, e.g. `email` (`provider`).
    public var provider: String
    /// The identity's email address, when it has one (`email`).
    public var email: String?
    /// When the user last signed in with this identity (`last_sign_in_at`).
    public var lastSignInAt: Date?
    /// When the identity was created (`created_at`).
    public var createdAt: Date
    /// When the identity last changed (`updated_at`).
    public var updatedAt: Date

    /// Creates an identity.
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
    /// The factor's id (`id`).
    public var id: UUID
    /// A name the user gave the factor (`friendly_name`).
    public var friendlyName: String?
    /// The kind of factor, e.g. ``FactorType/totp`` (`factor_type`).
    public var factorType: FactorType
    /// ``FactorStatus/verified`` or ``FactorStatus/unverified``; GoTrue lists unverified factors
    /// too (`status`).
    public var status: FactorStatus
    /// When the factor was enrolled (`created_at`).
    public var createdAt: Date
    /// When the factor last changed (`updated_at`).
    public var updatedAt: Date
    /// When the factor was last challenged, if ever (`last_challenged_at`).
    public var lastChallengedAt: Date?
    /// A phone factor's number, masked but for its last four digits (`phone`).
    public var phone: String?

    /// Creates a factor.
    public init(
        id: UUID, friendlyName: String?, factorType: FactorType, status: FactorStatus, createdAt: Date, updatedAt: Date,
        lastChallengedAt: Date? = nil, phone: String? = nil
    ) {
        self.id = id
        self.friendlyName = friendlyName
        self.factorType = factorType
        self.status = status
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.lastChallengedAt = lastChallengedAt
        self.phone = phone
    }

    enum CodingKeys: String, CodingKey {
        case id, status, phone
        case friendlyName = "friendly_name"
        case factorType = "factor_type"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case lastChallengedAt = "last_challenged_at"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeLowercased(id, forKey: .id)
        try c.encodeIfPresent(friendlyName, forKey: .friendlyName)
        try c.encode(factorType, forKey: .factorType)
        try c.encode(status, forKey: .status)
        try c.encode(createdAt, forKey: .createdAt)
        try c.encode(updatedAt, forKey: .updatedAt)
        try c.encodeIfPresent(lastChallengedAt, forKey: .lastChallengedAt)
        try c.encodeIfPresent(phone, forKey: .phone)
    }
}
