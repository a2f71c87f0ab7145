import Foundation
import LatchkeyAPI
import Synchronization

/// ``IDTokenReader`` for unit tests: a token is an opaque name for the claims ``issue(_:by:algorithm:)``
/// was given, and verifies only under the issuer named there; ``refuse(_:with:)`` makes a token
/// fail as a real reader would.
public final class InMemoryIDTokenReader: IDTokenReader {
    struct Issued {
        var claims: [String: JSONValue]
        var issuer: String
        var algorithm: String
        var refusal: IDTokenRefusal?
    }

    private let issued = Mutex<[String: Issued]>([:])
    private let random: any RandomSource

    public init(random: any RandomSource = SystemRandomSource()) {
        self.random = random
    }

    /// A token carrying `claims`, as if `issuer` signed it with `algorithm`.
    public func issue(_ claims: [String: JSONValue], by issuer: String, algorithm: String = "RS256") -> String {
        let token = "idtoken." + Base64URL.encode(random.bytes(16))
        issued.withLock { $0[token] = Issued(claims: claims, issuer: issuer, algorithm: algorithm) }
        return token
    }

    /// Makes `token` fail verification with `refusal`.
    public func refuse(_ token: String, with refusal: IDTokenRefusal) {
        issued.withLock { $0[token]?.refusal = refusal }
    }

    public func unverifiedClaims(_ token: String) -> [String: JSONValue]? {
        issued.withLock { $0[token]?.claims }
    }

    public func verified(_ token: String, issuer: String) async throws -> VerifiedIDToken {
        let entry = issued.withLock { $0[token] }
        guard let entry else { throw IDTokenRefusal(.malformed, "not issued") }
        if let refusal = entry.refusal { throw refusal }
        guard entry.issuer == issuer else { throw IDTokenRefusal(.unknownKey, "signed by \(entry.issuer), not \(issuer)") }
        return VerifiedIDToken(algorithm: entry.algorithm, claims: entry.claims)
    }
}
