import Crypto
import Foundation
import LatchkeyAPI

/// The ES256 (P-256) private keys that sign tokens, as PEM text: new ones, and the public JWK
/// of one as `/.well-known/jwks.json` publishes it.
public enum SigningKeyPEM {
    /// A new P-256 private key in PEM (`BEGIN PRIVATE KEY`).
    public static func generate() -> String {
        P256.Signing.PrivateKey().pemRepresentation
    }

    /// The public JWK of a P-256 private key in PEM (`BEGIN PRIVATE KEY` or `BEGIN EC PRIVATE
    /// KEY`), published under `kid`.
    public static func publicJWK(pem: String, kid: String) throws -> [String: JSONValue] {
        guard let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) else {
            throw KeyConfigurationError("The key is not an EC P-256 private key in PEM")
        }
        // The uncompressed point: 0x04, then x and y, 32 bytes each.
        let point = Array(key.publicKey.x963Representation)
        return [
            "kty": "EC", "crv": "P-256", "x": .string(Base64URL.encode(point[1..<33])), "y": .string(Base64URL.encode(point[33..<65])),
            "kid": .string(kid), "alg": "ES256", "use": "sig", "key_ops": ["verify"],
        ]
    }
}

/// A configuration error in the signing keys.
public struct KeyConfigurationError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
