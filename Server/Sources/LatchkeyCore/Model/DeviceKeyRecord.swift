import Foundation
import LatchkeyAPI

/// A registered device key: the public half of a P-256 key pair kept on a user's device.
public struct DeviceKeyRecord: Sendable, Equatable {
    public var id: UUID
    public var userID: UUID
    public var name: String
    /// The public key as a JWK with only `kty`, `crv`, `x` and `y`.
    public var publicKey: [String: JSONValue]
    public var createdAt: Date
    public var lastUsedAt: Date?

    public init(id: UUID, userID: UUID, name: String, publicKey: [String: JSONValue], createdAt: Date, lastUsedAt: Date? = nil) {
        self.id = id
        self.userID = userID
        self.name = name
        self.publicKey = publicKey
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }

    /// The key as the API shows it.
    public var wire: DeviceKey {
        DeviceKey(id: id.uuidString.lowercased(), name: name, publicKey: publicKey, createdAt: createdAt, lastUsedAt: lastUsedAt)
    }
}
