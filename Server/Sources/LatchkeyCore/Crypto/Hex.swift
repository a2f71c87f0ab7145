import Foundation

/// Hexadecimal digits, read and written in one place: digests, ids (`UUID+Text.swift`) and JSON's
/// `\u` escapes.
@usableFromInline enum Hex {
    /// The lower-case digits, by value.
    @usableFromInline static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    /// The value of one digit of either case; `nil` for any other byte.
    @inline(__always) static func value(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// Bytes from hexadecimal text (either case): `nil` for an odd length or another character.
func hexBytes<Text: StringProtocol>(_ text: Text) -> [UInt8]? {
    let utf8 = Array(text.utf8)
    guard utf8.count % 2 == 0 else { return nil }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(utf8.count / 2)
    var index = 0
    while index < utf8.count {
        guard let high = Hex.value(utf8[index]), let low = Hex.value(utf8[index + 1]) else { return nil }
        bytes.append(high << 4 | low)
        index += 2
    }
    return bytes
}

extension Sequence where Element == UInt8 {
    /// Lower-case hexadecimal, two digits a byte.
    public var hexString: String {
        let bytes = Array(self)
        return String(unsafeUninitializedCapacity: 2 * bytes.count) { text in
            for (index, byte) in bytes.enumerated() {
                text[2 * index] = Hex.digits[Int(byte >> 4)]
                text[2 * index + 1] = Hex.digits[Int(byte & 0x0F)]
            }
            return 2 * bytes.count
        }
    }
}
