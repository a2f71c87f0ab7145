import Foundation
import LatchkeyAPI

extension RandomSource {
    /// A code of `length` decimal digits, each uniform (bytes of 250 and above are drawn again).
    public func digits(_ length: Int) -> String {
        var digits: [Character] = []
        digits.reserveCapacity(length)
        while digits.count < length {
            for byte in bytes(length - digits.count) where byte < 250 {
                digits.append(Character(String(byte % 10)))
            }
        }
        return String(digits)
    }

    /// A new link secret: 32 random bytes, base64url.
    public func linkSecret() -> String { Base64URL.encode(bytes(32)) }
}
