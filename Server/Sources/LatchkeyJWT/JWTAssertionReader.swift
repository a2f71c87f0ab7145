import Crypto
import Foundation
import JWTKit
import LatchkeyCore

/// ``DeviceKeyAssertionReader`` with JWTKit: ES256 only (a key of another type, or `alg: none`,
/// never verifies), the claims read as RFC 7523 names them.
public struct JWTAssertionReader: DeviceKeyAssertionReader {
    public init() {}

    /// The claims as JWTKit reads them. Their times are checked by ``DeviceKeySignIn`` against
    /// its clock, so verifying here checks only the signature.
    struct Payload: JWTPayload {
        var iss: IssuerClaim
        var sub: SubjectClaim
        var aud: AudienceClaim
        var exp: ExpirationClaim
        var iat: IssuedAtClaim?
        var jti: IDClaim

        func verify(using algorithm: some JWTAlgorithm) async throws {}

        var assertion: DeviceKeyAssertion {
            DeviceKeyAssertion(iss: iss.value, sub: sub.value, aud: aud.value, exp: exp.value, iat: iat?.value, jti: jti.value)
        }
    }

    public func unverifiedClaims(_ assertion: String) async -> DeviceKeyAssertion? {
        try? await JWTKeyCollection().unverified(assertion, as: Payload.self).assertion
    }

    public func verifiedClaims(_ assertion: String, key: P256.Signing.PublicKey) async -> DeviceKeyAssertion? {
        guard let publicKey = try? ES256PublicKey(backing: key) else { return nil }
        let keys = await JWTKeyCollection().add(ecdsa: publicKey)
        return try? await keys.verify(assertion, as: Payload.self).assertion
    }
}
