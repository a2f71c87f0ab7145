import Foundation

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
