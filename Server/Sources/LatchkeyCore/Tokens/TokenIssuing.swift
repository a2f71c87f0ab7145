import Foundation
import LatchkeyAPI

/// Signs and verifies access tokens and publishes the public keys: the one place JWTs are made.
/// The domain knows only the claims; `LatchkeyJWT`'s `TokenIssuer` signs with JWTKit, and
/// ``InMemoryTokenIssuer`` stands in for it in unit tests.
public protocol TokenIssuing: Sendable {
    /// The signing algorithm, e.g. `ES256`.
    var algorithm: String { get }
    /// Whether the keys are the stored ones that `latchkey keys rotate|import` manage.
    var usesStoredKeys: Bool { get }
    /// How long a replaced stored key keeps verifying (the access-token lifetime and a margin).
    var retention: TimeInterval { get }
    /// The `kid` of the key that signs now, when it has one.
    var signingKeyID: String? { get }
    /// The public keys, as published at `/.well-known/jwks.json`.
    var publicJWKS: [[String: JSONValue]] { get }
    /// The stored keys in the order they sign, with when each signs from, whether it signs now
    /// and until when a replaced key verifies; empty for configured keys.
    var schedule: [(kid: String, signsFrom: Date, signs: Bool, verifiesUntil: Date?)] { get }

    /// Signs `claims` with the key that signs now.
    func sign(_ claims: AccessTokenClaims) async throws -> String
    /// The claims of a token this server signed whose time claims admit it now
    /// (``AccessTokenClaims/isValid(at:)``); `nil` for anything else.
    func verify(_ token: String) async -> AccessTokenClaims?
    /// Replaces the stored keys with `keys` (after a rotation or import), leaving out those
    /// obsolete now. `privatePEM` opens a key's sealed private part.
    func install(_ keys: [SigningKeyRecord], privatePEM: (SigningKeyRecord) throws -> String) async throws
}
