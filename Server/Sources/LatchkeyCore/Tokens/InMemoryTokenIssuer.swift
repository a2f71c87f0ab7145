import Foundation
import LatchkeyAPI
import Synchronization

/// ``TokenIssuing`` for unit tests: a token is an opaque random name for the claims it was
/// issued with, verified by looking them up and checking their times against `time`. Nothing is
/// signed, so nothing is published.
public final class InMemoryTokenIssuer: TokenIssuing {
    private let issued = Mutex<[String: AccessTokenClaims]>([:])
    private let time: any TimeSource
    private let random: any RandomSource

    public init(time: any TimeSource, random: any RandomSource = SystemRandomSource()) {
        self.time = time
        self.random = random
    }

    public var algorithm: String { "none" }
    public var usesStoredKeys: Bool { false }
    public var retention: TimeInterval { 3600 + 60 }
    public var signingKeyID: String? { nil }
    public var publicJWKS: [[String: JSONValue]] { [] }
    public var schedule: [(kid: String, signsFrom: Date, signs: Bool, verifiesUntil: Date?)] { [] }

    public func sign(_ claims: AccessTokenClaims) async throws -> String {
        let token = "memory." + Base64URL.encode(random.bytes(16))
        issued.withLock { $0[token] = claims }
        return token
    }

    public func verify(_ token: String) async -> AccessTokenClaims? {
        guard let claims = issued.withLock({ $0[token] }), claims.isValid(at: time.now()) else { return nil }
        return claims
    }

    public func install(_ keys: [SigningKeyRecord], privatePEM: (SigningKeyRecord) throws -> String) async throws {}
}
