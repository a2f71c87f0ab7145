import Crypto
import Foundation
import LatchkeyAPI

/// Recovers the public key that signed a digest on secp256k1 (Ethereum's curve). Core knows only
/// this; `LatchkeyWallets` implements it with Debian's libsecp256k1, and tests may stand in.
public protocol EthereumSignatureRecovering: Sendable {
    /// The signer's uncompressed public key (64 bytes, x then y) for a 32-byte `digest` and a
    /// compact signature (`r` and `s`, 64 bytes) with its recovery id (0 or 1); `nil` when the
    /// signature does not recover.
    func recoverPublicKey(digest: [UInt8], signature: [UInt8], recoveryID: Int32) -> [UInt8]?
}

/// What a wallet's signature over a sign-in message proves, chain by chain.
public enum Web3Signatures {
    /// EIP-191's `personal_sign` digest of `message`: Keccak-256 of
    /// `"\u{19}Ethereum Signed Message:\n" + length + message`.
    public static func ethereumDigest(_ message: String) -> [UInt8] {
        let bytes = Array(message.utf8)
        return Keccak256.hash(Array("\u{19}Ethereum Signed Message:\n\(bytes.count)".utf8) + bytes)
    }

    /// The address of an uncompressed public key (64 bytes): the last 20 bytes of its
    /// Keccak-256, in EIP-55's mixed case.
    public static func ethereumAddress(publicKey: [UInt8]) -> String {
        checksummed(Array(Keccak256.hash(publicKey).suffix(20)))
    }

    /// EIP-55: the hex digits of `address` (20 bytes), a letter upper-cased where the nibble of
    /// the Keccak-256 of the lowercase hex at its place is 8 or more.
    public static func checksummed(_ address: [UInt8]) -> String {
        let lower = address.hexString
        let hash = Keccak256.hash(Array(lower.utf8))
        var out = "0x"
        for (index, character) in lower.enumerated() {
            let nibble = index % 2 == 0 ? hash[index / 2] >> 4 : hash[index / 2] & 0x0F
            out.append(nibble >= 8 ? Character(character.uppercased()) : character)
        }
        return out
    }

    /// secp256k1's group order halved: a signature's `s` above it is the other of a malleable
    /// pair (EIP-2), refused.
    static let halfOrder: [UInt8] = [
        0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        0x5D, 0x57, 0x6E, 0x73, 0x57, 0xA4, 0x50, 0x1D, 0xDF, 0xE9, 0x2F, 0x46, 0x68, 0x1B, 0x20, 0xA0,
    ]

    /// The EIP-55 address that signed `message` with `signature` (`0x` and 130 hex digits: `r`,
    /// `s`, `v` of 27/28 or 0/1, `s` in the lower half), or `nil`.
    public static func ethereumSigner(of message: String, signature: String, recovering: any EthereumSignatureRecovering) -> String? {
        guard signature.utf8.count == 132, signature.hasPrefix("0x"), let bytes = hexBytes(signature.dropFirst(2)), bytes.count == 65
        else { return nil }
        let v = bytes[64]
        guard [0, 1, 27, 28].contains(v) else { return nil }
        let s = Array(bytes[32..<64])
        guard s.lexicographicallyPrecedes(halfOrder) || s == halfOrder else { return nil }
        let digest = ethereumDigest(message)
        guard let key = recovering.recoverPublicKey(digest: digest, signature: Array(bytes[0..<64]), recoveryID: Int32(v % 27)) else {
            return nil
        }
        return ethereumAddress(publicKey: key)
    }

    /// Whether `signature` (64 bytes) is `address`'s Ed25519 signature of `message`, as wallets
    /// sign it (the raw text) or as a Ledger does (Solana's off-chain message envelope).
    public static func solanaSigned(_ message: String, signature: [UInt8], address: String, domain: String) -> Bool {
        guard signature.count == 64, let raw = Base58.decode(address), raw.count == 32,
            let key = try? Curve25519.Signing.PublicKey(rawRepresentation: raw)
        else { return false }
        let text = Array(message.utf8)
        if key.isValidSignature(signature, for: text) { return true }
        guard text.count <= 0xFFFF else { return false }
        // The off-chain envelope (v0): signing domain, version, the application domain (32
        // bytes), format (restricted ASCII), one signer and its key, the length (LE), the text.
        var envelope: [UInt8] = [0xFF] + Array("solana offchain".utf8) + [0x00]
        let application = Array(domain.utf8.prefix(32))
        envelope += application + [UInt8](repeating: 0, count: 32 - application.count)
        envelope += [0x00, 0x01] + raw + [UInt8(text.count & 0xFF), UInt8(text.count >> 8)] + text
        return key.isValidSignature(signature, for: envelope)
    }

    static func sha256(_ bytes: [UInt8]) -> [UInt8] { Array(SHA256.hash(data: bytes)) }
}
