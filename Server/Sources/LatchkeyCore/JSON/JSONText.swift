import Foundation
import LatchkeyAPI

/// JSON text for the store's JSON columns (metadata, identity data, audit details) and the
/// payloads of this server's tokens, written (by ``JSONWriter``, the one writer) and read directly: a fraction of what `JSONEncoder`
/// and `JSONDecoder` cost on every request. What it writes decodes to the same values, and what it
/// reads it reads as `JSONDecoder` does (`JSONTextTests` compares them).
public enum JSONText {
    /// `object` as JSON text, or `nil` when it holds a number JSON cannot write (infinite or NaN).
    public static func encode(_ object: [String: JSONValue]) -> String? {
        var writer = JSONWriter(style: .compact)
        return writer.object(object) ? String(decoding: writer.bytes, as: UTF8.self) : nil
    }

    /// `strings` as a JSON array.
    public static func encode(_ strings: [String]) -> String {
        var writer = JSONWriter(style: .compact)
        _ = writer.array(strings) { $0.string($1) }
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    // MARK: Reading

    /// The object in `text`, or `nil` when `text` is not one JSON object this reader takes
    /// (the caller then asks `JSONDecoder`, which reads any JSON): the columns this store wrote,
    /// read without `JSONDecoder`'s generic machinery.
    public static func decodeObject(_ text: String) -> [String: JSONValue]? {
        var text = text
        return text.withUTF8 { decodeObject($0) }
    }

    /// The object in `bytes` (UTF-8), as the text form reads it.
    public static func decodeObject(_ bytes: UnsafeBufferPointer<UInt8>) -> [String: JSONValue]? {
        guard case .object(let object)? = decode(bytes) else { return nil }
        return object
    }

    /// The one JSON value in `text` (an array, say), or `nil` when it is not one this reader takes.
    public static func decode(_ text: String) -> JSONValue? {
        var text = text
        return text.withUTF8 { decode($0) }
    }

    private static func decode(_ bytes: UnsafeBufferPointer<UInt8>) -> JSONValue? {
        var reader = Reader(bytes: bytes)
        reader.skipSpace()
        guard let value = reader.value(depth: 0) else { return nil }
        reader.skipSpace()
        return reader.position == bytes.count ? value : nil
    }

    /// A recursive-descent reader over UTF-8 bytes, at most 64 levels deep.
    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        mutating func skipSpace() {
            while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
        }

        mutating func literal(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard position + count <= bytes.count else { return false }
            for index in 0..<count where bytes[position + index] != word.utf8Start[index] { return false }
            position += count
            return true
        }

        mutating func value(depth: Int) -> JSONValue? {
            guard depth < 64, position < bytes.count else { return nil }
            switch bytes[position] {
            case UInt8(ascii: "{"):
                position += 1
                var members: [String: JSONValue] = [:]
                skipSpace()
                if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
                    position += 1
                    return .object(members)
                }
                while true {
                    skipSpace()
                    guard let key = string() else { return nil }
                    skipSpace()
                    guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { return nil }
                    position += 1
                    skipSpace()
                    guard let member = value(depth: depth + 1) else { return nil }
                    // A repeated key keeps its first value, as JSONDecoder does.
                    if members[key] == nil { members[key] = member }
                    skipSpace()
                    guard position < bytes.count else { return nil }
                    if bytes[position] == UInt8(ascii: ",") {
                        position += 1
                    } else if bytes[position] == UInt8(ascii: "}") {
                        position += 1
                        return .object(members)
                    } else {
                        return nil
                    }
                }
            case UInt8(ascii: "["):
                position += 1
                var items: [JSONValue] = []
                skipSpace()
                if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                    position += 1
                    return .array(items)
                }
                while true {
                    skipSpace()
                    guard let item = value(depth: depth + 1) else { return nil }
                    items.append(item)
                    skipSpace()
                    guard position < bytes.count else { return nil }
                    if bytes[position] == UInt8(ascii: ",") {
                        position += 1
                    } else if bytes[position] == UInt8(ascii: "]") {
                        position += 1
                        return .array(items)
                    } else {
                        return nil
                    }
                }
            case UInt8(ascii: "\""): return string().map(JSONValue.string)
            case UInt8(ascii: "t"): return literal("true") ? .bool(true) : nil
            case UInt8(ascii: "f"): return literal("false") ? .bool(false) : nil
            case UInt8(ascii: "n"): return literal("null") ? .null : nil
            default: return number().map(JSONValue.number)
            }
        }

        /// A number as JSON spells it: `-`, digits without a leading zero, an optional fraction
        /// and exponent.
        mutating func number() -> Double? {
            let start = position
            func digits() -> Int {
                let from = position
                while position < bytes.count, bytes[position] >= 0x30, bytes[position] <= 0x39 { position += 1 }
                return position - from
            }
            if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
            let integerStart = position
            let integer = digits()
            guard integer > 0, !(integer > 1 && bytes[integerStart] == 0x30) else { return nil }
            if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
                position += 1
                guard digits() > 0 else { return nil }
            }
            if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
                position += 1
                if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                    position += 1
                }
                guard digits() > 0 else { return nil }
            }
            guard let number = Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)),
                number.isFinite
            else { return nil }
            return number
        }

        /// A string, its escapes undone; `nil` for a raw control character, a bad escape or a
        /// lone surrogate.
        mutating func string() -> String? {
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { return nil }
            position += 1
            let start = position
            // Most strings have no escape: take their bytes as they are.
            while position < bytes.count, bytes[position] != UInt8(ascii: "\""), bytes[position] != UInt8(ascii: "\\") {
                guard bytes[position] >= 0x20 else { return nil }
                position += 1
            }
            guard position < bytes.count else { return nil }
            var out = Array(UnsafeBufferPointer(rebasing: bytes[start..<position]))
            while true {
                guard position < bytes.count else { return nil }
                let byte = bytes[position]
                position += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return String(validating: out, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard position < bytes.count else { return nil }
                    let escape = bytes[position]
                    position += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "u"):
                        guard var scalar = hex4() else { return nil }
                        if (0xD800..<0xDC00).contains(scalar) {
                            guard literal("\\u"), let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        }
                        guard let unicode = Unicode.Scalar(scalar) else { return nil }
                        out.append(contentsOf: String(Character(unicode)).utf8)
                    default: return nil
                    }
                default:
                    guard byte >= 0x20 else { return nil }
                    out.append(byte)
                }
            }
        }

        mutating func hex4() -> UInt32? {
            guard position + 4 <= bytes.count else { return nil }
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard let digit = Hex.value(bytes[position]) else { return nil }
                value = value << 4 | UInt32(digit)
                position += 1
            }
            return value
        }
    }
}
