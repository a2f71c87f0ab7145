import Foundation
import JWTKit
import LatchkeyAPI
import LatchkeyCore
import Synchronization

/// Signs and verifies access tokens with JWTKit and publishes the public keys (``TokenIssuing``).
///
/// Keys come from `GOTRUE_JWT_KEYS` / `GOTRUE_JWT_SECRET`, fixed for the process's life, or from
/// the store (generated on first start, rotated and imported with `latchkey keys`): then each
/// key signs from its `signsFrom` on, is published from the moment it is installed, and keeps
/// verifying for `retention` after the next key took over.
public struct TokenIssuer: TokenIssuing {
    let state: IssuerState
    let time: any TimeSource
    /// How long a replaced stored key keeps verifying (the access-token lifetime and a margin).
    public let retention: TimeInterval
    /// The signing algorithm, e.g. `ES256`.
    public let algorithm: String
    /// Whether the keys are the stored ones that `latchkey keys rotate|import` manage.
    public let usesStoredKeys: Bool

    init(state: IssuerState, time: any TimeSource, retention: TimeInterval, algorithm: String, usesStoredKeys: Bool) {
        self.state = state
        self.time = time
        self.retention = retention
        self.algorithm = algorithm
        self.usesStoredKeys = usesStoredKeys
    }

    /// The `kid` of the key that signs now, when it has one.
    public var signingKeyID: String? { state.snapshot.signer(at: time.now())?.string }

    /// The public keys, as published at `/.well-known/jwks.json`.
    public var publicJWKS: [[String: JSONValue]] { state.snapshot.published(at: time.now()) }

    /// The stored keys in the order they sign, with when each signs from, whether it signs now
    /// and until when a replaced key verifies; empty for configured keys.
    public var schedule: [(kid: String, signsFrom: Date, signs: Bool, verifiesUntil: Date?)] {
        guard usesStoredKeys else { return [] }
        let snapshot = state.snapshot
        let current = snapshot.signer(at: time.now())
        return snapshot.signers.map { ($0.kid?.string ?? "", $0.signsFrom, $0.kid == current, $0.verifiesUntil) }
    }

    /// Signs `claims` with the key that signs now.
    public func sign(_ claims: AccessTokenClaims) async throws -> String {
        let snapshot = state.snapshot
        return try await snapshot.keys.sign(AccessTokenPayload(claims), kid: snapshot.signer(at: time.now()))
    }

    /// Verifies a token's signature, then its time claims against the issuer's clock; `nil`
    /// means it is not one of ours, or not now.
    public func verify(_ token: String) async -> AccessTokenClaims? {
        guard token.utf8.count <= 16_384, let payload = try? await state.snapshot.keys.verify(token, as: AccessTokenPayload.self),
            payload.claims.isValid(at: time.now())
        else { return nil }
        return payload.claims
    }

    /// Replaces the stored keys with `keys` (after a rotation or import), leaving out those
    /// obsolete now. `privatePEM` opens a key's sealed private part.
    public func install(_ keys: [SigningKeyRecord], privatePEM: (SigningKeyRecord) throws -> String) async throws {
        guard usesStoredKeys else { return }
        let obsolete = Set(SigningKeyRecord.obsolete(keys, at: time.now(), retention: retention))
        state.snapshot = try await Self.snapshot(
            of: keys.filter { !obsolete.contains($0.kid) }.map { ($0, try privatePEM($0)) }, retention: retention)
    }

    static func snapshot(of keys: [(SigningKeyRecord, String)], retention: TimeInterval) async throws -> Snapshot {
        let collection = JWTKeyCollection(defaultJWTParser: ClaimsDecoder.parser)
        var signers: [Snapshot.Signer] = []
        let ordered = keys.sorted { $0.0.signsFrom < $1.0.signsFrom }
        for (index, (record, pem)) in ordered.enumerated() {
            let kid = JWKIdentifier(string: record.kid)
            await collection.add(
                ecdsa: try ES256PrivateKey(pem: pem), kid: kid, parser: ClaimsDecoder.parser, serializer: ClaimsEncoder.serializer)
            let next = index + 1 < ordered.count ? ordered[index + 1].0.signsFrom : nil
            signers.append(
                Snapshot.Signer(
                    kid: kid, signsFrom: record.signsFrom, publicJWK: record.publicJWK,
                    verifiesUntil: next.map { $0.addingTimeInterval(retention) }))
        }
        return Snapshot(keys: collection, signers: signers, fixed: [])
    }
}

/// The issuer's keys, replaced whole when the stored keys change.
final class IssuerState: Sendable {
    private let storage: Mutex<Snapshot>

    init(_ snapshot: Snapshot) { storage = Mutex(snapshot) }

    var snapshot: Snapshot {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}

/// One set of keys: which signs when, and what is published.
struct Snapshot: Sendable {
    struct Signer: Sendable {
        var kid: JWKIdentifier?
        var signsFrom: Date
        var publicJWK: [String: JSONValue]?
        var verifiesUntil: Date?
    }

    var keys: JWTKeyCollection
    /// Stored keys in the order they sign, or the one configured signer.
    var signers: [Signer]
    /// Public keys of a configured JWK set (published as they are).
    var fixed: [[String: JSONValue]]

    func signer(at now: Date) -> JWKIdentifier? {
        (signers.last { $0.signsFrom <= now } ?? signers.first)?.kid
    }

    func published(at now: Date) -> [[String: JSONValue]] {
        fixed + signers.filter { ($0.verifiesUntil ?? .distantFuture) > now }.compactMap(\.publicJWK)
    }
}

/// The keys an issuer is built from.
public struct TokenKeyMaterial: Sendable {
    /// JWKs from `GOTRUE_JWT_KEYS` (any with private parts may sign).
    public var jwks: [[String: JSONValue]]
    /// `GOTRUE_JWT_SECRET`: HS256, and the fallback for tokens without a known `kid`.
    public var hmacSecret: String?
    /// The stored keys with their opened private PEMs, used when neither of the above is set.
    public var stored: [(SigningKeyRecord, String)]

    public init(jwks: [[String: JSONValue]] = [], hmacSecret: String? = nil, stored: [(SigningKeyRecord, String)] = []) {
        self.jwks = jwks
        self.hmacSecret = hmacSecret
        self.stored = stored
    }

    /// Whether the configuration names its own keys, so the stored ones are not used.
    public var isConfigured: Bool { !jwks.isEmpty || !(hmacSecret ?? "").isEmpty }
}

extension TokenIssuer {
    /// Builds an issuer. Which key signs: the first JWK whose `key_ops` has `sign` (else the first
    /// private JWK); else the HMAC secret when given without a JWK set; else the stored keys, each
    /// from its time. `retention` is how long a replaced stored key keeps verifying.
    public static func make(
        from material: TokenKeyMaterial, time: any TimeSource = SystemTimeSource(), retention: TimeInterval = 3600 + 60
    ) async throws -> TokenIssuer {
        if !material.isConfigured {
            guard !material.stored.isEmpty else { throw KeyConfigurationError("No signing key: the store has none") }
            let snapshot = try await snapshot(of: material.stored, retention: retention)
            return TokenIssuer(
                state: IssuerState(snapshot), time: time, retention: retention, algorithm: "ES256", usesStoredKeys: true)
        }
        let keys = JWTKeyCollection(defaultJWTParser: ClaimsDecoder.parser)
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

        if let secret = material.hmacSecret, !secret.isEmpty {
            // No kid: the default, which also checks tokens without a known kid (as GoTrue does).
            await keys.add(
                hmac: HMACKey(from: Array(secret.utf8)), digestAlgorithm: .sha256, parser: ClaimsDecoder.parser,
                serializer: ClaimsEncoder.serializer)
            if signer == nil { signer = (nil, "HS256") }
        }

        guard let signer else {
            throw KeyConfigurationError("No signing key: set GOTRUE_JWT_SECRET or a private key in GOTRUE_JWT_KEYS")
        }
        let snapshot = Snapshot(keys: keys, signers: [.init(kid: signer.kid, signsFrom: .distantPast)], fixed: published)
        return TokenIssuer(state: IssuerState(snapshot), time: time, retention: retention, algorithm: signer.alg, usesStoredKeys: false)
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
            await keys.add(
                hmac: HMACKey(from: secret), digestAlgorithm: .sha256, kid: kid, parser: ClaimsDecoder.parser,
                serializer: ClaimsEncoder.serializer)
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
}
