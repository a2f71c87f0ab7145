import Foundation

/// Base64url without padding (RFC 4648 §5), as used in tokens and links.
public enum Base64URL {
    public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let base64 = Data(bytes).base64EncodedData()
        var url = [UInt8]()
        url.reserveCapacity(base64.count)
        for byte in base64 {
            switch byte {
            case UInt8(ascii: "+"): url.append(UInt8(ascii: "-"))
            case UInt8(ascii: "/"): url.append(UInt8(ascii: "_"))
            case UInt8(ascii: "="): break
            default: url.append(byte)
            }
        }
        return String(decoding: url, as: UTF8.self)
    }

    /// Decodes base64url, with or without padding; `nil` for anything else, or for text longer
    /// than `maxLength` bytes (4 KiB by default: tokens, keys and salts are far shorter).
    public static func decode(_ text: String, maxLength: Int = 4096) -> [UInt8]? {
        guard text.utf8.count <= maxLength else { return nil }
        var base64 = [UInt8]()
        base64.reserveCapacity(text.utf8.count + 3)
        for byte in text.utf8 {
            guard byte.isBase64URLCharacter else { return nil }
            switch byte {
            case UInt8(ascii: "-"): base64.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): base64.append(UInt8(ascii: "/"))
            default: base64.append(byte)
            }
        }
        while base64.count % 4 != 0 { base64.append(UInt8(ascii: "=")) }
        return Data(base64Encoded: Data(base64)).map { [UInt8]($0) }
    }
}

extension UInt8 {
    fileprivate var isBase64URLCharacter: Bool {
        (self >= 0x30 && self <= 0x39) || (self >= 0x41 && self <= 0x5A) || (self >= 0x61 && self <= 0x7A)
            || self == 0x2D || self == 0x5F || self == 0x3D
    }
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
