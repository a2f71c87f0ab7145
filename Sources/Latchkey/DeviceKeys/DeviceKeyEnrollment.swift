import Foundation
import LatchkeyAPI

/// What this device remembers about its enrolled device key: which server key it is, whose, and
/// where its private half is kept. Stored beside the session; holds no secret.
struct DeviceKeyEnrollment: Codable, Sendable, Equatable {
    /// The key's id on the server (the assertion's `iss`).
    var keyID: String
    /// The user the key signs in (the assertion's `sub`).
    var userID: String
    /// The name the key was registered under.
    var name: String
    /// The ``DeviceKeyStore`` tag of the private key.
    var tag: String

    /// A compact ES256 JWS asserting `sub` to `audience`, for the RFC 7523 grant: valid for two
    /// minutes, with a fresh random `jti`.
    func signingInput(audience: String, now: Date) throws -> Data {
        let header = #"{"alg":"ES256","typ":"JWT","kid":"\#(keyID)"}"#
        let issued = Int(now.timeIntervalSince1970)
        let claims: [String: JSONValue] = [
            "iss": .string(keyID), "sub": .string(userID), "aud": .string(audience), "iat": .number(Double(issued)),
            "exp": .number(Double(issued + 120)), "jti": .string(UUID().uuidString.lowercased()),
        ]
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let payload = try encoder.encode(claims)
        return Data((Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(payload))).utf8)
    }
}
