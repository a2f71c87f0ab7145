import Foundation

/// Bytes from hexadecimal text (either case): `nil` for an odd length or another character.
func hexBytes<Text: StringProtocol>(_ text: Text) -> [UInt8]? {
    let utf8 = Array(text.utf8)
    guard utf8.count % 2 == 0 else { return nil }
    func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x41...0x46: c - 0x37
        case 0x61...0x66: c - 0x57
        default: nil
        }
    }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(utf8.count / 2)
    var index = 0
    while index < utf8.count {
        guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else { return nil }
        bytes.append(high << 4 | low)
        index += 2
    }
    return bytes
}

extension Sequence where Element == UInt8 {
    /// Lower-case hexadecimal.
    public var hexString: String {
        var result = ""
        for byte in self {
            result += String(byte, radix: 16).count == 1 ? "0" + String(byte, radix: 16) : String(byte, radix: 16)
        }
        return result
    }
}
