import Crypto
import Foundation

extension EmbeddedSigner {
    /// The key's Solana address (its 32 bytes in base58), when the key is on this device.
    public var solanaAddress: String? {
        guard case .ready(let raw) = state else { return nil }
        return Base58.encode([UInt8](raw))
    }

    /// The key's Stellar account id (StrKey, `G…`, as SwiftBasicPay shows it): version byte 6 << 3,
    /// the 32 bytes, a CRC16-XModem checksum (little-endian), in RFC 4648 base32.
    public var stellarAddress: String? {
        guard case .ready(let raw) = state else { return nil }
        return StrKey.accountID([UInt8](raw))
    }

    /// Signs in with this key as a Solana wallet: a Sign in with Solana message for `uri`, signed
    /// here (the key must be on this device, and its address linked to the user or the user new).
    @discardableResult
    public func signInWithSolana(uri: URL, statement: String? = nil) async throws -> Session {
        guard let address = solanaAddress else {
            throw LatchkeyError(code: .signerNotConfigured, message: "The signing key is not on this device")
        }
        let message = SignInMessage(chain: .solana, address: address, uri: uri, statement: statement)
        let signature = try await sign(Data(message.text.utf8))
        return try await auth.signInWithWeb3(message: message, signature: signature)
    }
}

/// Stellar's StrKey encoding of an Ed25519 public key.
enum StrKey {
    static func accountID(_ key: [UInt8]) -> String {
        let payload: [UInt8] = [6 << 3] + key
        let checksum = crc16(payload)
        return base32(payload + [UInt8(checksum & 0xFF), UInt8(checksum >> 8)])
    }

    /// CRC-16/XMODEM: polynomial 0x1021, initial value 0.
    static func crc16(_ bytes: [UInt8]) -> UInt16 {
        var crc: UInt16 = 0
        for byte in bytes {
            crc ^= UInt16(byte) << 8
            for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1 }
        }
        return crc
    }

    /// RFC 4648 base32, no padding (a 35-byte payload is 56 characters exactly).
    static func base32(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        var out = ""
        var buffer = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | Int(byte)
            bits += 8
            while bits >= 5 {
                out.append(alphabet[(buffer >> (bits - 5)) & 31])
                bits -= 5
            }
        }
        if bits > 0 { out.append(alphabet[(buffer << (5 - bits)) & 31]) }
        return out
    }
}
