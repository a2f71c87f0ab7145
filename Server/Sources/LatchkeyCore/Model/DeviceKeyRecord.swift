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
    /// The session that registered the key or last signed in with it: the key of the device that
    /// session runs on, which "sign out my other devices" keeps.
    public var sessionID: UUID?

    public init(
        id: UUID, userID: UUID, name: String, publicKey: [String: JSONValue], createdAt: Date, lastUsedAt: Date? = nil,
        sessionID: UUID? = nil
    ) {
        self.id = id
        self.userID = userID
        self.name = name
        self.publicKey = publicKey
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.sessionID = sessionID
    }

    /// The key as the API shows it.
    public var wire: DeviceKey {
        DeviceKey(id: id, name: name, publicKey: publicKey, createdAt: createdAt, lastUsedAt: lastUsedAt)
    }
}
