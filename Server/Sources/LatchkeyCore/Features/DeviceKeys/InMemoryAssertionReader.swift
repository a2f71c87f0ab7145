import Crypto
import Foundation
import LatchkeyAPI
import Synchronization

/// ``DeviceKeyAssertionReader`` for unit tests: an assertion is an opaque random name for the
/// claims ``issue(_:signedBy:)`` was given, and verifies only under the key named there.
public final class InMemoryAssertionReader: DeviceKeyAssertionReader {
    private let issued = Mutex<[String: (claims: DeviceKeyAssertion, signer: Data)]>([:])
    private let random: any RandomSource

    public init(random: any RandomSource = SystemRandomSource()) {
        self.random = random
    }

    /// An assertion carrying `claims`, as if the private key of `signer` signed it.
    public func issue(_ claims: DeviceKeyAssertion, signedBy signer: P256.Signing.PublicKey) -> String {
        let assertion = "assertion." + Base64URL.encode(random.bytes(16))
        issued.withLock { $0[assertion] = (claims, signer.rawRepresentation) }
        return assertion
    }

    public func unverifiedClaims(_ assertion: String) async -> DeviceKeyAssertion? {
        issued.withLock { $0[assertion]?.claims }
    }

    public func verifiedClaims(_ assertion: String, key: P256.Signing.PublicKey) async -> DeviceKeyAssertion? {
        issued.withLock { issued in
            guard let entry = issued[assertion], entry.signer == key.rawRepresentation else { return nil }
            return entry.claims
        }
    }
}
