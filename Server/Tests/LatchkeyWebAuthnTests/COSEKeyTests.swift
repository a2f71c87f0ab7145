import Crypto
import CryptoExtras
import Foundation
import Testing

@testable import LatchkeyWebAuthn

/// COSE keys of the three kinds passkeys use, their signatures checked by swift-crypto, and keys
/// whose parts disagree or are not keys refused.
@Suite struct COSEKeyTests {
    static func es256(_ key: P256.Signing.PublicKey) -> CBOR {
        let point = Array(key.x963Representation)
        return .map([
            (.unsigned(1), .unsigned(2)), (.unsigned(3), .negative(-7)), (.negative(-1), .unsigned(1)),
            (.negative(-2), .bytes(Array(point[1..<33]))), (.negative(-3), .bytes(Array(point[33..<65]))),
        ])
    }

    @Test func es256EdDSAAndRS256KeysVerifyTheirSignatures() throws {
        let data = Array("authenticator data and client data hash".utf8)
        let p256 = P256.Signing.PrivateKey()
        let es = try COSEKey(Self.es256(p256.publicKey))
        let signature = Array(try p256.signature(for: data).derRepresentation)
        #expect(es.algorithm == -7)
        #expect(es.verifies(signature, over: data))
        #expect(!es.verifies(signature, over: data + [0]))
        #expect(!es.verifies([0x30, 0x00], over: data))

        let ed = Curve25519.Signing.PrivateKey()
        let okp = try COSEKey(
            .map([
                (.unsigned(1), .unsigned(1)), (.unsigned(3), .negative(-8)), (.negative(-1), .unsigned(6)),
                (.negative(-2), .bytes(Array(ed.publicKey.rawRepresentation))),
            ]))
        let edSignature = Array(try ed.signature(for: data))
        #expect(okp.verifies(edSignature, over: data))

        let rsa = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let primitives = try rsa.publicKey.getKeyPrimitives()
        let rs = try COSEKey(
            .map([
                (.unsigned(1), .unsigned(3)), (.unsigned(3), .negative(-257)), (.negative(-1), .bytes(Array(primitives.modulus))),
                (.negative(-2), .bytes(Array(primitives.publicExponent))),
            ]))
        let rsaSignature = Array(try rsa.signature(for: data, padding: .insecurePKCS1v1_5).rawRepresentation)
        #expect(rs.verifies(rsaSignature, over: data))
    }

    @Test func keysWhosePartsDisagreeAreRefused() {
        let point = Array(P256.Signing.PrivateKey().publicKey.x963Representation)
        let x = CBOR.bytes(Array(point[1..<33]))
        var offCurve = Array(point[33..<65])
        offCurve[31] ^= 1
        let cases: [(CBOR, COSEKeyError)] = [
            (.array([]), .malformed),
            (.map([(.unsigned(1), .unsigned(2))]), .malformed),
            (.map([(.unsigned(1), .unsigned(2)), (.unsigned(3), .negative(-8))]), .unsupportedAlgorithm(-8)),
            (.map([(.unsigned(1), .unsigned(2)), (.unsigned(3), .negative(-35))]), .unsupportedAlgorithm(-35)),
            (
                .map([
                    (.unsigned(1), .unsigned(2)), (.unsigned(3), .negative(-7)), (.negative(-1), .unsigned(1)), (.negative(-2), x),
                    (.negative(-3), .bytes(offCurve)),
                ]), .invalidKey("an EC2 key on P-256 needs 32-byte x and y of a point on the curve")
            ),
            (
                .map([
                    (.unsigned(1), .unsigned(2)), (.unsigned(3), .negative(-7)), (.negative(-1), .unsigned(2)), (.negative(-2), x),
                    (.negative(-3), .bytes(Array(point[33..<65]))),
                ]), .invalidKey("an EC2 key on P-256 needs 32-byte x and y of a point on the curve")
            ),
            (
                .map([
                    (.unsigned(1), .unsigned(3)), (.unsigned(3), .negative(-257)),
                    (.negative(-1), .bytes([UInt8](repeating: 0xff, count: 128))),
                    (.negative(-2), .bytes([1, 0, 1])),
                ]), .invalidKey("an RSA key needs a modulus of 2048 to 4096 bits")
            ),
        ]
        for (cbor, error) in cases {
            #expect(throws: error) { try COSEKey(cbor) }
        }
    }
}
