import Crypto
import Foundation
import JWTKit
import LatchkeyAPI
import LatchkeyCore
import LatchkeyJWT
import Testing

/// The device-key assertion reader: ES256 under the given key, and nothing else.
@Suite struct JWTAssertionReaderTests {
    struct Claims: JWTPayload {
        var iss: String
        var sub: String
        var aud: AudienceClaim
        var exp: Int
        var iat: Int?
        var jti: String
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    static let claims = Claims(
        iss: UUID().uuidString.lowercased(), sub: UUID().uuidString.lowercased(),
        aud: AudienceClaim(value: ["https://auth.example.com/token"]),
        exp: 1_800_000_300, iat: 1_800_000_000, jti: "j-1")

    static func sign(_ claims: Claims = claims, with key: P256.Signing.PrivateKey) async throws -> String {
        try await JWTKeyCollection().add(ecdsa: try ES256PrivateKey(backing: key)).sign(claims)
    }

    @Test func anAssertionSignedByTheKeyReadsWithItsClaims() async throws {
        let key = P256.Signing.PrivateKey()
        let assertion = try await Self.sign(with: key)
        let expected = DeviceKeyAssertion(
            iss: Self.claims.iss, sub: Self.claims.sub, aud: ["https://auth.example.com/token"],
            exp: Date(timeIntervalSince1970: 1_800_000_300), iat: Date(timeIntervalSince1970: 1_800_000_000), jti: "j-1")
        let reader = JWTAssertionReader()
        #expect(await reader.unverifiedClaims(assertion) == expected)
        #expect(await reader.verifiedClaims(assertion, key: key.publicKey) == expected)

        // `aud` as a single string is one audience.
        var single = Self.claims
        single.aud = AudienceClaim(value: "https://auth.example.com/token")
        #expect(await reader.verifiedClaims(try await Self.sign(single, with: key), key: key.publicKey)?.aud == [single.aud.value[0]])
    }

    @Test func nothingElseVerifies() async throws {
        let key = P256.Signing.PrivateKey()
        let assertion = try await Self.sign(with: key)
        let parts = assertion.split(separator: ".").map(String.init)
        let hmac = try await JWTKeyCollection().add(hmac: HMACKey(from: Array(key.publicKey.rawRepresentation)), digestAlgorithm: .sha256)
            .sign(Self.claims)
        var other = Self.claims
        other.sub = UUID().uuidString
        let swapped = try JSONEncoder().encode(other)
        let hostile = [
            try await Self.sign(with: P256.Signing.PrivateKey()),  // another key
            hmac,  // HS256 keyed with the public key
            Base64URL.encode(Array(#"{"alg":"none"}"#.utf8)) + "." + parts[1] + ".",
            parts[0] + "." + Base64URL.encode(swapped) + "." + parts[2],
            parts[0] + "." + parts[1],
            "", "....", "not a jwt",
        ]
        let reader = JWTAssertionReader()
        for assertion in hostile {
            #expect(await reader.verifiedClaims(assertion, key: key.publicKey) == nil, "\(assertion.prefix(60))")
        }
        // Claims missing or of the wrong type: not an assertion, even unverified.
        let header = parts[0]
        for payload in [
            #"{}"#, #"{"iss":1,"sub":"s","aud":"a","exp":1,"jti":"j"}"#, #"{"iss":"i","sub":"s","aud":"a","exp":"soon","jti":"j"}"#,
        ] {
            #expect(await reader.unverifiedClaims(header + "." + Base64URL.encode(Array(payload.utf8)) + ".sig") == nil, "\(payload)")
        }
    }
}
