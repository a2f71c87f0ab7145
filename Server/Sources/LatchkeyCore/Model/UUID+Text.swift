import Foundation

extension UUID {
    /// The lowercase 8-4-4-4-12 form that the wire and the store use: `uuidString.lowercased()`,
    /// written directly. Foundation's `uuidString` formats with `snprintf` and its copy is then
    /// lowered; every id a request reads or answers paid for both.
    public var lowercasedString: String {
        withUnsafeBytes(of: uuid) { raw in
            String(unsafeUninitializedCapacity: 36) { text in
                var index = 0
                for (offset, byte) in raw.enumerated() {
                    if offset == 4 || offset == 6 || offset == 8 || offset == 10 {
                        text[index] = UInt8(ascii: "-")
                        index += 1
                    }
                    text[index] = Hex.digits[Int(byte >> 4)]
                    text[index + 1] = Hex.digits[Int(byte & 0x0F)]
                    index += 2
                }
                return index
            }
        }
    }

    /// The UUID `text` names, as `UUID(uuidString:)` reads it. The canonical form (36 characters:
    /// hex digits of either case, hyphens after the 8th, 12th, 16th and 20th digit), which is what
    /// the store and the wire hold, is read here; anything else is left to Foundation, whose reader
    /// (`sscanf`) cost a request more than its JSON did.
    public init?(text: String) {
        if let uuid = Self.canonical(text) {
            self = uuid
        } else if let uuid = UUID(uuidString: text) {
            self = uuid
        } else {
            return nil
        }
    }

    private static func canonical(_ text: String) -> UUID? {
        var text = text
        return text.withUTF8 { utf8 -> UUID? in
            guard utf8.count == 36 else { return nil }
            var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            let complete = withUnsafeMutableBytes(of: &uuid) { bytes -> Bool in
                var index = 0
                var byte = 0
                while index < 36 {
                    if index == 8 || index == 13 || index == 18 || index == 23 {
                        guard utf8[index] == UInt8(ascii: "-") else { return false }
                        index += 1
                        continue
                    }
                    guard let high = Hex.value(utf8[index]), let low = Hex.value(utf8[index + 1]) else { return false }
                    bytes[byte] = high << 4 | low
                    byte += 1
                    index += 2
                }
                return true
            }
            return complete ? UUID(uuid: uuid) : nil
        }
    }
}
