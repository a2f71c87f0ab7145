import Foundation

/// Base58 with Bitcoin's alphabet (Solana's addresses): no `0`, `O`, `I` or `l`.
public enum Base58 {
    static let alphabet = Array("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz".utf8)
    static let values: [UInt8: Int] = Dictionary(uniqueKeysWithValues: alphabet.enumerated().map { ($0.element, $0.offset) })

    /// The bytes of `text`, or `nil` for a character outside the alphabet (or over 128 of them).
    public static func decode(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count <= 128 else { return nil }
        var bytes: [UInt8] = []  // little-endian
        for character in utf8 {
            guard var carry = values[character] else { return nil }
            for index in bytes.indices {
                carry += Int(bytes[index]) * 58
                bytes[index] = UInt8(carry & 0xFF)
                carry >>= 8
            }
            while carry > 0 {
                bytes.append(UInt8(carry & 0xFF))
                carry >>= 8
            }
        }
        let zeros = utf8.prefix { $0 == UInt8(ascii: "1") }.count
        return [UInt8](repeating: 0, count: zeros) + bytes.reversed()
    }

    /// `bytes` in base58.
    public static func encode(_ bytes: [UInt8]) -> String {
        var digits: [Int] = []  // little-endian base 58
        for byte in bytes {
            var carry = Int(byte)
            for index in digits.indices {
                carry += digits[index] << 8
                digits[index] = carry % 58
                carry /= 58
            }
            while carry > 0 {
                digits.append(carry % 58)
                carry /= 58
            }
        }
        let zeros = bytes.prefix { $0 == 0 }.count
        return String(repeating: "1", count: zeros) + String(decoding: digits.reversed().map { alphabet[$0] }, as: UTF8.self)
    }
}
