import Foundation
import LatchkeyAPI

/// Reads OpenID Connect id tokens: the claims as written (to find the issuer), and the claims
/// once the signature verifies under a key the issuer publishes.
///
/// The server's implementation (`OpenIDTokenReader`, in `LatchkeyProviders`) finds the issuer's
/// keys through OpenID discovery, caches them, and takes the algorithm from the key: never
/// `none`, never a shared-secret (HS*) algorithm. ``InMemoryIDTokenReader`` stands in for it in
/// unit tests.
public protocol IDTokenReader: Sendable {
    /// The payload's claims, unverified; `nil` when `token` is not a JWT with a JSON object payload.
    func unverifiedClaims(_ token: String) -> [String: JSONValue]?
    /// The token's claims and signing algorithm once its signature verifies under one of the
    /// keys `issuer` publishes; throws ``IDTokenRefusal`` otherwise.
    func verified(_ token: String, issuer: String) async throws -> VerifiedIDToken
}

/// An id token whose signature verified.
public struct VerifiedIDToken: Sendable, Equatable {
    /// The header's `alg`, which the key allowed (`RS256`, `ES256`, …): it names the hash of
    /// `at_hash`.
    public var algorithm: String
    public var claims: [String: JSONValue]

    public init(algorithm: String, claims: [String: JSONValue]) {
        self.algorithm = algorithm
        self.claims = claims
    }
}

/// Why an id token was not accepted before its claims were looked at.
public struct IDTokenRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: String, Sendable {
        /// Not three base64url parts with JSON header and payload.
        case malformed
        /// `none`, a shared-secret algorithm, or one the key does not allow.
        case algorithm
        /// No published key has the token's `kid`, even after fetching the keys again.
        case unknownKey = "unknown_key"
        /// The signature does not verify.
        case signature
        /// The issuer's discovery document or keys could not be fetched or read.
        case unreachable
    }

    public var reason: Reason
    /// What went wrong, for the log (never shown to the client).
    public var detail: String

    public init(_ reason: Reason, _ detail: String) {
        self.reason = reason
        self.detail = detail
    }

    public var description: String { "\(reason.rawValue): \(detail)" }
}
