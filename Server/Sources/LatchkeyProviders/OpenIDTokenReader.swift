import Foundation
import JWTKit
import LatchkeyAPI
import LatchkeyCore

/// ``IDTokenReader`` for real providers: the issuer's keys from ``OpenIDKeyCache``, the
/// signature checked by JWTKit under the one key the token's `kid` names.
///
/// The algorithm must be an asymmetric one the key's type allows (RSA: `RS*`/`PS*`; EC: `ES*` on
/// its curve; OKP: `EdDSA`) and, when the key states one, the key's own: never `none`, never
/// `HS*` (a shared-secret token signed with a client secret is refused).
public struct OpenIDTokenReader: IDTokenReader {
    let keys: OpenIDKeyCache

    public init(keys: OpenIDKeyCache) {
        self.keys = keys
    }

    static let algorithms: Set<String> = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]

    public func unverifiedClaims(_ token: String) -> [String: JSONValue]? {
        Self.part(token, 1)
    }

    public func verified(_ token: String, issuer: String) async throws -> VerifiedIDToken {
        guard token.utf8.count <= 16_384, token.split(separator: ".", omittingEmptySubsequences: false).count == 3,
            let header = Self.part(token, 0), Self.part(token, 1) != nil
        else { throw IDTokenRefusal(.malformed, "not a JWT") }
        guard let algorithm = header["alg"]?.stringValue, Self.algorithms.contains(algorithm) else {
            throw IDTokenRefusal(.algorithm, "alg \(header["alg"].map { "\($0)" } ?? "missing") is not accepted")
        }
        let kid = header["kid"]?.stringValue
        var candidates = Self.matching(try await keys.keys(issuer: issuer), kid: kid, algorithm: algorithm)
        if candidates.isEmpty, kid != nil {
            // A key id the set lacks: the provider may have rotated its keys.
            candidates = Self.matching(try await keys.keys(issuer: issuer, refreshing: true), kid: kid, algorithm: algorithm)
        }
        guard !candidates.isEmpty else { throw IDTokenRefusal(.unknownKey, "no \(algorithm) key \(kid ?? "without an id")") }
        for key in candidates {
            if let claims = try? await Self.verify(token, with: key) {
                return VerifiedIDToken(algorithm: algorithm, claims: claims)
            }
        }
        throw IDTokenRefusal(.signature, "the signature does not verify")
    }

    /// The keys with `kid` (any key without one when the token names none) that may sign `algorithm`.
    static func matching(_ keys: [JWK], kid: String?, algorithm: String) -> [JWK] {
        keys.filter { key in
            (kid == nil || key.keyIdentifier?.string == kid) && allows(key, algorithm)
                && (key.algorithm.map { $0.rawValue == algorithm } ?? true)
        }
    }

    /// Whether the key's type (and curve) can sign `algorithm`.
    static func allows(_ key: JWK, _ algorithm: String) -> Bool {
        switch key.keyType {
        case .rsa: return algorithm.hasPrefix("RS") || algorithm.hasPrefix("PS")
        case .ecdsa:
            let curves = ["ES256": "P-256", "ES384": "P-384", "ES512": "P-521"]
            return curves[algorithm] != nil && key.curve?.rawValue == curves[algorithm]
        case .octetKeyPair: return algorithm == "EdDSA" && key.curve?.rawValue == "Ed25519"
        default: return false
        }
    }

    /// The claims when `key` verifies `token`'s signature.
    static func verify(_ token: String, with key: JWK) async throws -> [String: JSONValue] {
        var named = key
        named.keyIdentifier = JWKIdentifier(string: key.keyIdentifier?.string ?? "key")
        let collection = JWTKeyCollection()
        try await collection.add(jwk: named, isDefault: true)
        return try await collection.verify(token, as: IDTokenPayload.self).claims
    }

    /// The JSON object in the token's `index`th part.
    static func part(_ token: String, _ index: Int) -> [String: JSONValue]? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let bytes = Base64URL.decode(String(parts[index]), maxLength: 16_384) else { return nil }
        return try? JSONDecoder().decode([String: JSONValue].self, from: Data(bytes))
    }
}

/// Any claims: the rules are checked by ``IDTokenSignIn``, not here.
struct IDTokenPayload: JWTPayload {
    var claims: [String: JSONValue]

    init(from decoder: any Decoder) throws {
        claims = try [String: JSONValue](from: decoder)
    }

    func encode(to encoder: any Encoder) throws {
        try claims.encode(to: encoder)
    }

    func verify(using algorithm: some JWTAlgorithm) throws {}
}
