import Foundation

/// Base64url without padding (RFC 4648 §5), as tokens, links, keys and vault values carry bytes:
/// one implementation for the SDK and the server.
public enum Base64URL {
    /// The unpadded base64url text of `bytes`.
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

    /// Decodes base64url (RFC 4648 §5): the alphabet `A–Z a–z 0–9 - _`, unpadded or padded with
    /// `=` to a multiple of four characters, `=` nowhere else; `nil` for anything else, or for text
    /// longer than `maxLength` bytes (4 KiB by default: tokens, keys and salts are far shorter).
    /// The API document's base64url patterns say the same.
    public static func decode(_ text: String, maxLength: Int = 4096) -> [UInt8]? {
        let utf8 = text.utf8
        guard utf8.count <= maxLength else { return nil }
        let padding = utf8.reversed().prefix { $0 == UInt8(ascii: "=") }.count
        let bodyCount = utf8.count - padding
        guard bodyCount % 4 != 1, padding == 0 || (utf8.count % 4 == 0 && padding <= 2) else { return nil }
        var base64 = [UInt8]()
        base64.reserveCapacity(bodyCount + 3)
        for byte in utf8.prefix(bodyCount) {
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
    /// A letter, a digit, `-` or `_`.
    fileprivate var isBase64URLCharacter: Bool {
        (self >= 0x30 && self <= 0x39) || (self >= 0x41 && self <= 0x5A) || (self >= 0x61 && self <= 0x7A)
            || self == 0x2D || self == 0x5F
    }
}
