import Foundation
import JWTKit
import LatchkeyAPI
import LatchkeyCore
import LatchkeyJWT
import Testing

/// The JWTKit issuer: it signs what the domain hands it, verifies only its own signatures, and
/// judges the time claims by its own clock.
@Suite struct TokenIssuerTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func storedKey(_ pem: String, kid: String) throws -> (SigningKeyRecord, String) {
        let record = SigningKeyRecord(
            kid: kid, sealedPrivateKey: "", publicJWK: try SigningKeyPEM.publicJWK(pem: pem, kid: kid), createdAt: start,
            signsFrom: Date(timeIntervalSince1970: 0))
        return (record, pem)
    }

    @Test func theTimeClaimsAreJudgedByTheIssuersClock() async throws {
        let time = ManualTimeSource(Self.start)
        let issuer = try await TokenIssuer.make(
            from: TokenKeyMaterial(stored: [try Self.storedKey(SigningKeyPEM.generate(), kid: "a")]), time: time)
        let seconds = Int(Self.start.timeIntervalSince1970)
        let claims = AccessTokenClaims(sub: UUID().uuidString.lowercased(), exp: seconds + 3600, iat: seconds)
        let token = try await issuer.sign(claims)
        #expect(await issuer.verify(token) == claims)
        // An hour later by this clock (whatever the machine's says), the token has expired.
        time.advance(by: 3600)
        #expect(await issuer.verify(token) == nil)

        // `nbf` more than 30 seconds ahead of the clock: not yet.
        var later = AccessTokenClaims(sub: "x", exp: seconds + 7200)
        later.nbf = seconds + 3600 + 31
        #expect(await issuer.verify(try await issuer.sign(later)) == nil)
        later.nbf = seconds + 3600 + 30
        #expect(await issuer.verify(try await issuer.sign(later)) != nil)
    }

    @Test func onlyItsOwnSignaturesVerify() async throws {
        let pem = SigningKeyPEM.generate()
        let issuer = try await TokenIssuer.make(from: TokenKeyMaterial(stored: [try Self.storedKey(pem, kid: "ours")]))
        let claims = AccessTokenClaims(sub: "someone", exp: Int(Date().timeIntervalSince1970) + 600)
        let token = try await issuer.sign(claims)
        #expect(await issuer.verify(token) == claims)

        // Another key under the same kid, the public JWK as an HMAC secret, no signature at all,
        // a changed payload, and text that is no JWT.
        let other = JWTKeyCollection()
        await other.add(ecdsa: ES256PrivateKey(), kid: "ours")
        let jwks = try JSONEncoder().encode(issuer.publicJWKS)
        let confused = JWTKeyCollection()
        await confused.add(hmac: HMACKey(from: Array(jwks)), digestAlgorithm: .sha256, kid: "ours")
        let parts = token.split(separator: ".").map(String.init)
        let tampered = try JSONEncoder().encode(AccessTokenClaims(sub: "admin", exp: claims.exp))
        let hostile = [
            try await other.sign(AccessTokenPayload(claims), kid: "ours"),
            try await confused.sign(AccessTokenPayload(claims), kid: "ours"),
            Base64URL.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8)) + "." + parts[1] + ".",
            parts[0] + "." + Base64URL.encode(tampered) + "." + parts[2],
            "", "a.b.c", String(repeating: "a", count: 20_000),
        ]
        for token in hostile { #expect(await issuer.verify(token) == nil, "\(token.prefix(80))") }
    }

    @Test func thePublishedKeyIsTheSigningKeysPublicHalf() async throws {
        let pem = SigningKeyPEM.generate()
        let jwk = try SigningKeyPEM.publicJWK(pem: pem, kid: "k1")
        // JWTKit derives the same point from the PEM.
        let parameters = try #require(try ES256PrivateKey(pem: pem).parameters)
        #expect(jwk["x"]?.stringValue == parameters.x)
        #expect(jwk["y"]?.stringValue == parameters.y)
        #expect(jwk["kid"] == "k1" && jwk["alg"] == "ES256" && jwk["crv"] == "P-256")

        let issuer = try await TokenIssuer.make(from: TokenKeyMaterial(stored: [try Self.storedKey(pem, kid: "k1")]))
        #expect(issuer.publicJWKS == [jwk])
        #expect(issuer.signingKeyID == "k1")
        // Anyone holding the published key verifies the tokens.
        let token = try await issuer.sign(AccessTokenClaims(sub: "s", exp: Int(Date().timeIntervalSince1970) + 60))
        let verifier = JWTKeyCollection()
        await verifier.add(ecdsa: try ES256PublicKey(parameters: (x: parameters.x, y: parameters.y)), kid: "k1")
        #expect((try? await verifier.verify(token, as: AccessTokenPayload.self))?.claims.sub == "s")

        #expect(throws: KeyConfigurationError.self) { try SigningKeyPEM.publicJWK(pem: "not a key", kid: "k") }
    }
}
