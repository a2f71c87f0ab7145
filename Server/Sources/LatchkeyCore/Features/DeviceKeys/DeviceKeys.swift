import Crypto
import Foundation
import LatchkeyAPI

/// Device keys (`/device-keys`): P-256 public keys a user's devices register, each later signing
/// the assertions of the device-key grant (`POST /token`, ``DeviceKeySignIn``).
public struct DeviceKeys: Sendable {
    /// Keys one user may register.
    public static let maxKeys = 20

    let store: any DeviceKeyStore
    let gate: SecondFactorGate
    let events: AuditEvents
    let time: any TimeSource
    let random: any RandomSource

    public init(store: any DeviceKeyStore, gate: SecondFactorGate, time: any TimeSource, random: any RandomSource) {
        self.store = store
        self.gate = gate
        self.events = AuditEvents(time: time, random: random)
        self.time = time
        self.random = random
    }

    /// `POST /device-keys`: registers a P-256 public key for the signed-in user's session.
    public func register(_ request: RegisterDeviceKeyRequest, principal: Principal) async throws -> DeviceKey {
        guard let session = principal.session else {
            throw AuthError(.noAuthorization, "Registering a device key needs a user session")
        }
        try await gate.require(principal, to: "register a device key")
        let name = (request.name ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...100).contains(name.unicodeScalars.count) else { throw AuthError.validation("name must be 1 to 100 characters") }
        let publicKey = try Self.p256JWK(request.publicKey)
        let key = DeviceKeyRecord(
            id: random.uuid(), userID: principal.user.id, name: name, publicKey: publicKey, createdAt: time.now(), sessionID: session.id)
        let event = events.event(
            .deviceKeyRegistered, user: principal.user, details: ["key_id": .string(key.id.lowercasedString), "name": .string(name)])
        guard try await store.createDeviceKey(key, limit: Self.maxKeys, audit: [event]) else {
            throw AuthError.unprocessable("A user can register at most \(Self.maxKeys) device keys")
        }
        return key.wire
    }

    /// `GET /device-keys`.
    public func list(principal: Principal) async throws -> DeviceKeyList {
        DeviceKeyList(deviceKeys: try await store.deviceKeys(userID: principal.user.id).map(\.wire))
    }

    /// `DELETE /device-keys/{id}`: the key signs nothing from now on.
    public func revoke(id raw: String, principal: Principal) async throws {
        guard let id = UUID(text: raw) else { throw Self.notFound }
        let event = events.event(.deviceKeyRevoked, user: principal.user, details: ["key_id": .string(id.lowercasedString)])
        guard try await store.deleteDeviceKey(id: id, userID: principal.user.id, audit: [event]) else { throw Self.notFound }
    }

    static let notFound = AuthError(.notFound, "Device key not found")

    /// A P-256 public JWK reduced to `kty`, `crv`, `x`, `y`, or a `400 validation_failed` (a
    /// point off the curve: `422`).
    static func p256JWK(_ raw: [String: JSONValue]?) throws -> [String: JSONValue] {
        guard let raw else { throw AuthError.validation("public_key is required (a JWK, EC P-256)") }
        guard raw["d"] == nil else { throw AuthError.validation("public_key must not contain a private key") }
        guard raw["kty"] == "EC", raw["crv"] == "P-256", case .string(let x)? = raw["x"], case .string(let y)? = raw["y"],
            Base64URL.decode(x)?.count == 32, Base64URL.decode(y)?.count == 32
        else { throw AuthError.validation("public_key must be an EC P-256 JWK with x and y") }
        guard P256.Signing.PublicKey(jwkCoordinates: raw) != nil else {
            throw AuthError.unprocessable("public_key is not a valid P-256 point")
        }
        return ["kty": "EC", "crv": "P-256", "x": .string(x), "y": .string(y)]
    }
}
