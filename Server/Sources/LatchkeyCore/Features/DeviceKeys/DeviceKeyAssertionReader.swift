import Crypto
import Foundation

/// Reads device-key assertions, which are JWTs signed with ES256. Parsing them and checking
/// their signatures is a JWT library's work, outside the domain (`LatchkeyJWT`'s
/// `JWTAssertionReader`); ``InMemoryAssertionReader`` stands in for it in unit tests.
public protocol DeviceKeyAssertionReader: Sendable {
    /// The claims of `assertion` before its signature is checked, to find the key it names;
    /// `nil` when it is not a JWT carrying them.
    func unverifiedClaims(_ assertion: String) async -> DeviceKeyAssertion?
    /// The claims of `assertion` when `key` signed it with ES256; `nil` for anything else.
    func verifiedClaims(_ assertion: String, key: P256.Signing.PublicKey) async -> DeviceKeyAssertion?
}
