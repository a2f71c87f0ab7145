import Foundation
import LatchkeyAPI
import Synchronization

/// ``TokenIssuing`` for unit tests: a token is an opaque random name for the claims it was
/// issued with, verified by looking them up and checking their times against `time`. Nothing is
/// signed. With `storedKeys` it takes installed store keys as the real issuer does (publishing
/// their public keys, naming the newest whose time came as the signing key), so key management
/// can be tested on it; without, it stands for configured keys that cannot be changed.
public final class InMemoryTokenIssuer: TokenIssuing {
    private let issued = Mutex<[String: AccessTokenClaims]>([:])
    private let installed = Mutex<[SigningKeyRecord]>([])
    private let time: any TimeSource
    private let random: any RandomSource
    public let usesStoredKeys: Bool

    public init(time: any TimeSource, random: any RandomSource = SystemRandomSource(), storedKeys: Bool = false) {
        self.time = time
        self.random = random
        self.usesStoredKeys = storedKeys
    }

    public var algorithm: String { usesStoredKeys ? "ES256" : "none" }
    public var retention: TimeInterval { 3600 + 60 }
    public var signingKeyID: String? {
        let now = time.now()
        return installed.withLock { $0.last { $0.signsFrom <= now }?.kid }
    }
    public var publicJWKS: [[String: JSONValue]] { installed.withLock { $0.map(\.publicJWK) } }
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

    /// Takes the keys in the order they sign, after checking that each private key opens.
    public func install(_ keys: [SigningKeyRecord], privatePEM: (SigningKeyRecord) throws -> String) async throws {
        guard usesStoredKeys else { return }
        for key in keys { _ = try privatePEM(key) }
        installed.withLock { $0 = keys.sorted { $0.signsFrom < $1.signsFrom } }
    }
}
