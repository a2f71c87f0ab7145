import Foundation

/// Base64url without padding (RFC 4648 §5), as used in tokens and links.
public enum Base64URL {
    public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes base64url, with or without padding; `nil` for anything else.
    public static func decode(_ text: String) -> [UInt8]? {
        guard text.utf8.count <= 4096,
            text.utf8.allSatisfy({ $0.isBase64URLCharacter })
        else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64).map { [UInt8]($0) }
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
