import Foundation

/// Unpadded base64url (RFC 4648 §5), as the vault and signer APIs carry bytes.
enum Base64URL {
    static func encode(_ bytes: some Sequence<UInt8>) -> String { PKCE.base64URL(Array(bytes)) }

    static func decode(_ text: String) -> [UInt8]? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64).map(Array.init)
    }
}
