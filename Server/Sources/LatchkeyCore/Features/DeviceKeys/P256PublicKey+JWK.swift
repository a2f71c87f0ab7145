import Crypto
import Foundation
import LatchkeyAPI

extension P256.Signing.PublicKey {
    /// The key of a P-256 JWK's `x` and `y` (base64url, 32 bytes each); `nil` for anything else,
    /// and for a point that is not on the curve (swift-crypto refuses it).
    init?(jwkCoordinates jwk: [String: JSONValue]) {
        guard case .string(let x)? = jwk["x"], case .string(let y)? = jwk["y"], let xBytes = Base64URL.decode(x), xBytes.count == 32,
            let yBytes = Base64URL.decode(y), yBytes.count == 32, let key = try? Self(rawRepresentation: xBytes + yBytes)
        else { return nil }
        self = key
    }
}
