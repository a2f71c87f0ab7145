import Foundation
import LatchkeyAPI

/// The one JSON writer: bytes appended directly, a fraction of what `JSONEncoder` costs. It writes
/// in one of two styles:
///
/// - ``Style/compact``, for the store's JSON columns, token payloads and hook calls: any string
///   (control characters escaped), any finite number, keys in the dictionary's order.
/// - ``Style/wire``, for the hottest answers (`WireWriter`): byte for byte what `WireJSON`'s encoder
///   writes (sorted keys, unescaped slashes), so it refuses (`false`) what that encoder would write
///   otherwise: a control character or DEL in a string, a number with a fraction, a key that is not
///   plain ASCII. The caller then leaves the value to the encoder.
///
/// Every `Bool`-returning method says whether it wrote the value; on `false` the bytes are partial
/// and the caller drops them.
public struct JSONWriter: Sendable {
    public enum Style: Sendable {
        case compact
        case wire
    }

    public let style: Style
    /// The text written so far.
    public var bytes: [UInt8] = []

    @inlinable
    public init(style: Style, capacity: Int = 64) {
        self.style = style
        bytes.reserveCapacity(capacity)
    }

    @inlinable
    public mutating func open() { bytes.append(UInt8(ascii: "{")) }
    @inlinable
    public mutating func close() { bytes.append(UInt8(ascii: "}")) }
    @inlinable
    public mutating func openArray() { bytes.append(UInt8(ascii: "[")) }
    @inlinable
    public mutating func closeArray() { bytes.append(UInt8(ascii: "]")) }
    @inlinable
    public mutating func comma() { bytes.append(UInt8(ascii: ",")) }

    /// `"name":`, after a comma unless it is the object's first key.
    @inlinable
    public mutating func key(_ name: StaticString, first: Bool = false) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
    }

    @inlinable
    public mutating func int(_ value: Int) { bytes.append(contentsOf: String(value).utf8) }

    @inlinable
    public mutating func bool(_ value: Bool) { bytes.append(contentsOf: (value ? "true" : "false").utf8) }

    /// Text already known to need no escape (a formatted date, a UUID), quoted.
    @inlinable
    public mutating func plain(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: text.utf8)
        bytes.append(UInt8(ascii: "\""))
    }

    /// A JSON string: quotes and backslashes escaped, everything else as its UTF-8 bytes; control
    /// characters escaped (compact) or refused (wire).
    @discardableResult
    @inlinable
    public mutating func string(_ value: String) -> Bool {
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), byte])
            case 0x00..<0x20 where style == .wire, 0x7F where style == .wire: return false
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x00..<0x20:
                bytes.append(contentsOf: [
                    UInt8(ascii: "\\"), UInt8(ascii: "u"), 0x30, 0x30, Hex.digits[Int(byte >> 4)], Hex.digits[Int(byte & 0xF)],
                ])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
        return true
    }

    /// A number: whole ones (below 2^53) as integers, others (compact only) as the shortest digits
    /// that read back as the same `Double`; never infinity or NaN, which JSON cannot write.
    public mutating func number(_ number: Double) -> Bool {
        guard number.isFinite else { return false }
        if number.rounded() == number, abs(number) < 9_007_199_254_740_992 {
            bytes.append(contentsOf: String(Int64(number)).utf8)
            return true
        }
        guard style == .compact else { return false }
        bytes.append(contentsOf: "\(number)".utf8)
        return true
    }

    /// Items written by `write`, in brackets.
    public mutating func array<T>(_ items: [T], _ write: (inout JSONWriter, T) -> Bool) -> Bool {
        openArray()
        for (index, item) in items.enumerated() {
            if index > 0 { comma() }
            guard write(&self, item) else { return false }
        }
        closeArray()
        return true
    }

    /// An object: its members in the dictionary's order (compact), or sorted by their keys' bytes
    /// as the encoder sorts them, plain-ASCII keys only (wire).
    public mutating func object(_ members: [String: JSONValue]) -> Bool {
        bytes.append(UInt8(ascii: "{"))
        var first = true
        func member(_ key: String, _ value: JSONValue, into writer: inout JSONWriter) -> Bool {
            if !first { writer.bytes.append(UInt8(ascii: ",")) }
            first = false
            guard writer.string(key) else { return false }
            writer.bytes.append(UInt8(ascii: ":"))
            return writer.value(value)
        }
        switch style {
        case .compact:
            for (key, value) in members { guard member(key, value, into: &self) else { return false } }
        case .wire:
            guard members.keys.allSatisfy({ $0.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F } }) else { return false }
            for (key, value) in members.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
                guard member(key, value, into: &self) else { return false }
            }
        }
        bytes.append(UInt8(ascii: "}"))
        return true
    }

    public mutating func value(_ value: JSONValue) -> Bool {
        switch value {
        case .null: bytes.append(contentsOf: "null".utf8)
        case .bool(let flag): bool(flag)
        case .number(let number): return self.number(number)
        case .string(let text): return string(text)
        case .array(let items): return array(items) { $0.value($1) }
        case .object(let members): return object(members)
        }
        return true
    }
}
