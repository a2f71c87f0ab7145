import Foundation

/// A device key registered to a user (Latchkey extension): the public half of a P-256 key pair
/// whose private half stays on the device and signs sign-in assertions.
public struct DeviceKey: Codable, Sendable, Equatable {
    /// The key's id; assertions name it, lower case, as their issuer (`id`).
    public var id: UUID
    /// A name the user recognises, e.g. "Ada's iPhone" (`name`).
    public var name: String
    /// The public key as a JWK: `kty` `EC`, `crv` `P-256`, `x`, `y` (`public_key`).
    public var publicKey: [String: JSONValue]
    /// When the key was registered (`created_at`).
    public var createdAt: Date
    /// When the key last signed the user in (`last_used_at`).
    public var lastUsedAt: Date?

    /// Creates a device key.
    public init(id: UUID, name: String, publicKey: [String: JSONValue], createdAt: Date, lastUsedAt: Date? = nil) {
        self.id = id
        self.name = name
        self.publicKey = publicKey
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, name
        case publicKey = "public_key"
        case createdAt = "created_at"
        case lastUsedAt = "last_used_at"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeLowercased(id, forKey: .id)
        try c.encode(name, forKey: .name)
        try c.encode(publicKey, forKey: .publicKey)
        try c.encode(createdAt, forKey: .createdAt)
        try c.encodeIfPresent(lastUsedAt, forKey: .lastUsedAt)
    }
}

/// `GET /device-keys`: the signed-in user's device keys.
public struct DeviceKeyList: Codable, Sendable, Equatable {
    /// The keys, oldest first (`device_keys`).
    public var deviceKeys: [DeviceKey]

    /// Creates a list.
    public init(deviceKeys: [DeviceKey]) { self.deviceKeys = deviceKeys }

    enum CodingKeys: String, CodingKey { case deviceKeys = "device_keys" }
}

/// `POST /device-keys`: register a device's public key.
public struct RegisterDeviceKeyRequest: Codable, Sendable, Equatable {
    /// A name for the device (`name`).
    public var name: String?
    /// The public key as a JWK, EC P-256 (`public_key`).
    public var publicKey: [String: JSONValue]?

    /// Creates a request.
    public init(name: String?, publicKey: [String: JSONValue]?) {
        self.name = name
        self.publicKey = publicKey
    }

    enum CodingKeys: String, CodingKey {
        case name
        case publicKey = "public_key"
    }
}

/// `POST /token?grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer` (RFC 7523): a JWT the
/// device key signed, exchanged for a session.
public struct JWTBearerGrantRequest: Codable, Sendable, Equatable {
    /// The signed assertion (`assertion`).
    public var assertion: String?

    /// Creates a grant.
    public init(assertion: String?) { self.assertion = assertion }

    /// The grant type, as the `grant_type` query parameter names it.
    public static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"
}
