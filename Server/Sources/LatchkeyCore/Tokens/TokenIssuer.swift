import Crypto
import Foundation
import JWTKit
import LatchkeyAPI

/// Signs and verifies access tokens and publishes the public keys.
public struct TokenIssuer: Sendable {
    let keys: JWTKeyCollection
    let signingKID: JWKIdentifier?
    /// The public keys, as published at `/.well-known/jwks.json`.
    public let publicJWKS: [[String: JSONValue]]
    /// The signing algorithm, e.g. `ES256`.
    public let algorithm: String

    init(keys: JWTKeyCollection, signingKID: JWKIdentifier?, publicJWKS: [[String: JSONValue]], algorithm: String) {
        self.keys = keys
        self.signingKID = signingKID
        self.publicJWKS = publicJWKS
        self.algorithm = algorithm
    }

    /// The `kid` of the key that signs, when it has one.
    public var signingKeyID: String? { signingKID?.string }

    /// Signs `claims` with the signing key.
    public func sign(_ claims: AccessTokenClaims) async throws -> String {
        try await keys.sign(claims, kid: signingKID)
    }

    /// Verifies a token's signature and time claims; `nil` means it is not one of ours.
    public func verify(_ token: String) async -> AccessTokenClaims? {
        guard token.utf8.count <= 16_384 else { return nil }
        return try? await keys.verify(token, as: AccessTokenClaims.self)
    }
}

/// The keys an issuer is built from.
public struct TokenKeyMaterial: Sendable {
    /// JWKs from `GOTRUE_JWT_KEYS` (any with private parts may sign).
    public var jwks: [[String: JSONValue]]
    /// `GOTRUE_JWT_SECRET`: HS256, and the fallback for tokens without a known `kid`.
    public var hmacSecret: String?
    /// The generated ES256 key (PEM), used when no JWK set signs.
    public var generatedES256PEM: String?
    /// The generated key's id.
    public var generatedKID: String?

    public init(
        jwks: [[String: JSONValue]] = [], hmacSecret: String? = nil, generatedES256PEM: String? = nil,
        generatedKID: String? = nil
    ) {
        self.jwks = jwks
        self.hmacSecret = hmacSecret
        self.generatedES256PEM = generatedES256PEM
        self.generatedKID = generatedKID
    }
}

/// A configuration error in the signing keys.
public struct KeyConfigurationError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

extension TokenIssuer {
    /// Builds an issuer. Which key signs: the first JWK whose `key_ops` has `sign` (else the first
    /// private JWK); else the HMAC secret when given without a JWK set; else the generated ES256 key.
    public static func make(from material: TokenKeyMaterial) async throws -> TokenIssuer {
        let keys = JWTKeyCollection()
        var published: [[String: JSONValue]] = []
        var signer: (kid: JWKIdentifier?, alg: String)?
        var firstPrivate: (kid: JWKIdentifier?, alg: String)?

        for jwk in material.jwks {
            let added = try await addJWK(jwk, to: keys)
            if let publicJWK = added.publicJWK { published.append(publicJWK) }
            if added.isPrivate {
                let ops = jwk["key_ops"].flatMap { value -> [String]? in
                    if case .array(let items) = value { return items.compactMap(\.stringValue) }
                    return nil
                }
                if signer == nil, ops?.contains("sign") == true { signer = (added.kid, added.alg) }
                if firstPrivate == nil { firstPrivate = (added.kid, added.alg) }
            }
        }
        if signer == nil { signer = firstPrivate }

        if signer == nil, material.jwks.isEmpty, material.hmacSecret == nil, let pem = material.generatedES256PEM {
            let key = try ES256PrivateKey(pem: pem)
            let kid = JWKIdentifier(string: material.generatedKID ?? "latchkey")
            await keys.add(ecdsa: key, kid: kid)
            if let parameters = key.parameters {
                published.append([
                    "kty": "EC", "crv": "P-256", "x": .string(parameters.x), "y": .string(parameters.y),
                    "kid": .string(kid.string), "alg": "ES256", "use": "sig", "key_ops": ["verify"],
                ])
            }
            signer = (kid, "ES256")
        }

        if let secret = material.hmacSecret, !secret.isEmpty {
            // No kid: the default, which also checks tokens without a known kid (as GoTrue does).
            await keys.add(hmac: HMACKey(from: Array(secret.utf8)), digestAlgorithm: .sha256)
            if signer == nil { signer = (nil, "HS256") }
        }

        guard let signer else {
            throw KeyConfigurationError("No signing key: set GOTRUE_JWT_SECRET or a private key in GOTRUE_JWT_KEYS")
        }
        return TokenIssuer(keys: keys, signingKID: signer.kid, publicJWKS: published, algorithm: signer.alg)
    }

    private struct AddedKey {
        var kid: JWKIdentifier?
        var alg: String
        var isPrivate: Bool
        var publicJWK: [String: JSONValue]?
    }

    private static func addJWK(_ jwk: [String: JSONValue], to keys: JWTKeyCollection) async throws -> AddedKey {
        let kty = jwk["kty"]?.stringValue ?? ""
        let kidString = jwk["kid"]?.stringValue
        let kid = kidString.map { JWKIdentifier(string: $0) }
        switch kty {
        case "oct":
            guard let k = jwk["k"]?.stringValue, let secret = Base64URL.decode(k), secret.count >= 32 else {
                throw KeyConfigurationError("An oct JWK needs a base64url `k` of at least 32 bytes")
            }
            guard let kid else { throw KeyConfigurationError("An oct JWK in GOTRUE_JWT_KEYS needs a kid") }
            await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256, kid: kid)
            return AddedKey(kid: kid, alg: "HS256", isPrivate: true, publicJWK: nil)
        case "EC", "RSA", "OKP":
            guard let kid else { throw KeyConfigurationError("Every JWK in GOTRUE_JWT_KEYS needs a kid") }
            let data = try JSONEncoder().encode(jwk)
            let parsed = try JSONDecoder().decode(JWK.self, from: data)
            let alg: String
            switch kty {
            case "EC":
                guard jwk["crv"]?.stringValue == "P-256" else { throw KeyConfigurationError("Only P-256 EC keys are supported") }
                alg = "ES256"
            case "RSA": alg = "RS256"
            default: alg = "EdDSA"
            }
            var withAlg = parsed
            withAlg.algorithm = JWK.Algorithm(rawValue: alg)
            try await keys.add(jwk: withAlg, isDefault: false)
            let isPrivate = jwk["d"] != nil
            var publicJWK = jwk.filter { ["kty", "crv", "x", "y", "n", "e", "kid", "use", "alg"].contains($0.key) }
            publicJWK["alg"] = .string(alg)
            publicJWK["key_ops"] = ["verify"]
            return AddedKey(kid: kid, alg: alg, isPrivate: isPrivate, publicJWK: publicJWK)
        default:
            throw KeyConfigurationError("Unsupported JWK kty '\(kty)'")
        }
    }

    /// A new ES256 private key in PEM, for the data folder.
    public static func generateES256PEM() -> String {
        ES256PrivateKey().pemRepresentation
    }
}
