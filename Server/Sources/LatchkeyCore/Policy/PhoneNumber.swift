import Foundation

/// Phone numbers as GoTrue stores them: E.164 digits without `+`.
public enum PhoneNumber {
    /// GoTrue's rule exactly: one leading `+` dropped, then every space, and what is left is 2–15
    /// digits not starting with `0` (the API document's `Phone` pattern says the same); `nil`
    /// for anything else.
    public static func canonical(_ raw: String) -> String? {
        let digits = raw.utf8.dropFirst(raw.utf8.first == UInt8(ascii: "+") ? 1 : 0).filter { $0 != UInt8(ascii: " ") }
        guard (2...15).contains(digits.count), digits.first != UInt8(ascii: "0"),
            digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        return String(decoding: digits, as: UTF8.self)
    }
}
