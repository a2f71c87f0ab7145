import JWTKit
import LatchkeyCore

/// ``AccessTokenClaims`` as JWTKit signs and verifies them. Verifying checks only the signature
/// here: the issuer checks the time claims against its own clock (``AccessTokenClaims/isValid(at:)``).
public struct AccessTokenPayload: JWTPayload, Equatable {
    public var claims: AccessTokenClaims

    public init(_ claims: AccessTokenClaims) {
        self.claims = claims
    }

    public init(from decoder: any Decoder) throws {
        claims = try AccessTokenClaims(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        try claims.encode(to: encoder)
    }

    public func verify(using algorithm: some JWTAlgorithm) async throws {}
}
