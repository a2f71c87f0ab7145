import Crypto
import CryptoExtras
import Foundation

/// A credential public key in COSE form (RFC 9053), of the three kinds passkeys use: ES256 on
/// P-256 (`-7`), EdDSA on Ed25519 (`-8`) and RS256 (`-257`, 2048 bits or more). Every signature is
/// checked by swift-crypto.
public enum COSEKey: Sendable {
    case es256(P256.Signing.PublicKey)
    case ed25519(Curve25519.Signing.PublicKey)
    case rs256(_RSA.Signing.PublicKey)

    /// The COSE algorithm number.
    public var algorithm: Int64 {
        switch self {
        case .es256: -7
        case .ed25519: -8
        case .rs256: -257
        }
    }

    /// Reads a COSE key map: its key type, algorithm and curve must agree, and the key must be a
    /// valid point or modulus.
    public init(_ cbor: CBOR) throws(COSEKeyError) {
        guard case .map = cbor, let kty = cbor[int: 1]?.int, let alg = cbor[int: 3]?.int else { throw .malformed }
        switch (kty, alg) {
        case (2, -7):
            guard cbor[int: -1]?.int == 1, let x = cbor[int: -2]?.bytes, let y = cbor[int: -3]?.bytes, x.count == 32, y.count == 32,
                let key = try? P256.Signing.PublicKey(x963Representation: [0x04] + x + y)
            else { throw .invalidKey("an EC2 key on P-256 needs 32-byte x and y of a point on the curve") }
            self = .es256(key)
        case (1, -8):
            guard cbor[int: -1]?.int == 6, let x = cbor[int: -2]?.bytes, x.count == 32,
                let key = try? Curve25519.Signing.PublicKey(rawRepresentation: x)
            else { throw .invalidKey("an OKP key needs Ed25519 and a 32-byte x") }
            self = .ed25519(key)
        case (3, -257):
            guard let n = cbor[int: -1]?.bytes, let e = cbor[int: -2]?.bytes, n.count >= 256, n.count <= 512, !e.isEmpty, e.count <= 8,
                let key = try? _RSA.Signing.PublicKey(n: n, e: e), key.keySizeInBits >= 2048
            else { throw .invalidKey("an RSA key needs a modulus of 2048 to 4096 bits") }
            self = .rs256(key)
        default:
            throw .unsupportedAlgorithm(alg)
        }
    }

    /// Whether `signature` (DER for ES256, as WebAuthn sends it) signs `data`.
    public func verifies(_ signature: [UInt8], over data: [UInt8]) -> Bool {
        switch self {
        case .es256(let key):
            guard let parsed = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(parsed, for: data)
        case .ed25519(let key):
            return key.isValidSignature(signature, for: data)
        case .rs256(let key):
            return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: data, padding: .insecurePKCS1v1_5)
        }
    }
}

/// Why a COSE key is refused.
public enum COSEKeyError: Error, Sendable, Equatable {
    case malformed
    case unsupportedAlgorithm(Int64)
    case invalidKey(String)
}
