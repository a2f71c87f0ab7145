import Foundation
import LatchkeyWallets
import Testing

@testable import LatchkeyCore

/// Ethereum's signatures with Debian's libsecp256k1 (#41): GoTrue's test vectors recover to the
/// addresses their messages name; a malleable high-`s` twin, a wrong `v`, a truncated or non-hex
/// signature recover to nothing.
@Suite struct Secp256k1RecoveryTests {
    static let recovery = Secp256k1Recovery()

    @Test(arguments: [
        (
            "example.com wants you to sign in with your Ethereum account:\n0x196a28d05bA75C8dC35B0F6e71DD622D1aC82b7E\n\nSign in to Example App\n\nURI: https://example.com\nVersion: 1\nChain ID: 1\nNonce: 12345678\nIssued At: 2025-01-01T00:00:00.000Z",
            "0xee337880f195524c156b8cc5f425ffcedb9d94638a91fa41ba72e26d93f04c9d1c7bca7020071c34ef7527ed6389ee24b59de79deab4e9e8251e6ca1e195a56a1b",
            "0x196a28d05bA75C8dC35B0F6e71DD622D1aC82b7E"
        ),
        (
            "supabase.com wants you to sign in with your Ethereum account:\n0xD1FfC6bdfacf333C2B08F88f2f50ddcD87eaCa57\n\nStatement\n\nURI: https://supabase.com/\nVersion: 1\nIssued At: 2025-03-29T00:00:00Z",
            "0xd8dad96466536aca351702766ce1ca321317ef1e7c355b2cf19a166828f78854197ae34e3cdff0a6be1e6317f654ef458623433f14ed55f79f183e7a56c458f51b",
            "0xD1FfC6bdfacf333C2B08F88f2f50ddcD87eaCa57"
        ),
    ])
    func gotruesVectorsRecoverTheirSigner(message: String, signature: String, address: String) {
        #expect(Web3Signatures.ethereumSigner(of: message, signature: signature, recovering: Self.recovery) == address)
        // `v` as 0/1 is the same signature.
        let zeroBased = String(signature.dropLast(2)) + (signature.hasSuffix("1b") ? "00" : "01")
        #expect(Web3Signatures.ethereumSigner(of: message, signature: zeroBased, recovering: Self.recovery) == address)
        // Another message: another signer.
        #expect(Web3Signatures.ethereumSigner(of: message + " ", signature: signature, recovering: Self.recovery) != address)
    }

    static let order: [UInt8] = [
        0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE,
        0xBA, 0xAE, 0xDC, 0xE6, 0xAF, 0x48, 0xA0, 0x3B, 0xBF, 0xD2, 0x5E, 0x8C, 0xD0, 0x36, 0x41, 0x41,
    ]

    /// n − s: the other signature of the pair (EIP-2).
    static func negated(_ s: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var borrow = 0
        for index in (0..<32).reversed() {
            var value = Int(order[index]) - Int(s[index]) - borrow
            borrow = value < 0 ? 1 : 0
            if value < 0 { value += 256 }
            out[index] = UInt8(value)
        }
        return out
    }

    @Test func malleableAndMalformedSignaturesRecoverNothing() throws {
        let message =
            "supabase.com wants you to sign in with your Ethereum account:\n0xD1FfC6bdfacf333C2B08F88f2f50ddcD87eaCa57\n\nStatement\n\nURI: https://supabase.com/\nVersion: 1\nIssued At: 2025-03-29T00:00:00Z"
        let signature =
            "0xd8dad96466536aca351702766ce1ca321317ef1e7c355b2cf19a166828f78854197ae34e3cdff0a6be1e6317f654ef458623433f14ed55f79f183e7a56c458f51b"
        let bytes = try #require(hexBytes(signature.dropFirst(2)))
        let high = Array(bytes[0..<32]) + Self.negated(Array(bytes[32..<64])) + [bytes[64] == 27 ? 28 : 27]
        let twin = "0x" + high.map { String(format: "%02x", $0) }.joined()
        // libsecp256k1 itself recovers the twin to the same key: the refusal is ours.
        let key = Self.recovery.recoverPublicKey(
            digest: Web3Signatures.ethereumDigest(message), signature: Array(high[0..<64]), recoveryID: Int32(high[64] - 27))
        #expect(key.map(Web3Signatures.ethereumAddress) == "0xD1FfC6bdfacf333C2B08F88f2f50ddcD87eaCa57")
        #expect(Web3Signatures.ethereumSigner(of: message, signature: twin, recovering: Self.recovery) == nil)
        for bad in [
            String(signature.dropLast(2)) + "02", String(signature.dropLast(2)) + "25", String(signature.dropLast(2)),
            signature.replacingOccurrences(of: "0xd8", with: "0xz8"), String(signature.dropFirst(2)) + "00",
            "0x" + String(repeating: "0", count: 130), "0x" + String(repeating: "f", count: 130),
        ] {
            #expect(Web3Signatures.ethereumSigner(of: message, signature: bad, recovering: Self.recovery) == nil, "\(bad)")
        }
        #expect(Self.recovery.recoverPublicKey(digest: [1], signature: Array(bytes[0..<64]), recoveryID: 0) == nil)
        let digest = [UInt8](repeating: 1, count: 32)
        #expect(Self.recovery.recoverPublicKey(digest: digest, signature: Array(bytes[0..<64]), recoveryID: 9) == nil)
    }
}
