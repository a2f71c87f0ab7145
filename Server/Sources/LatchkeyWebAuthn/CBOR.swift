/// A CBOR data item (RFC 8949) of the kinds WebAuthn uses: what ``CBORDecoder`` reads from an
/// attestation object or a COSE key.
public enum CBOR: Sendable, Equatable {
    case unsigned(UInt64)
    /// A negative integer, `-1 - n` for the encoded `n`; only those that fit an `Int64`.
    case negative(Int64)
    case bytes([UInt8])
    case text(String)
    case array([CBOR])
    /// Pairs in the order encoded; keys are unique (integers or text).
    case map([(key: CBOR, value: CBOR)])
    case bool(Bool)
    case null

    public static func == (a: CBOR, b: CBOR) -> Bool {
        switch (a, b) {
        case (.unsigned(let x), .unsigned(let y)): return x == y
        case (.negative(let x), .negative(let y)): return x == y
        case (.bytes(let x), .bytes(let y)): return x == y
        case (.text(let x), .text(let y)): return x == y
        case (.array(let x), .array(let y)): return x == y
        case (.map(let x), .map(let y)): return x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        case (.bool(let x), .bool(let y)): return x == y
        case (.null, .null): return true
        default: return false
        }
    }

    /// The value under `key` in a map.
    public subscript(key: CBOR) -> CBOR? {
        guard case .map(let pairs) = self else { return nil }
        return pairs.first { $0.key == key }?.value
    }

    /// The value under the integer key `key` in a map (COSE keys use small integers).
    public subscript(int key: Int64) -> CBOR? { self[key >= 0 ? .unsigned(UInt64(key)) : .negative(key)] }

    /// The value under the text key `key` in a map (attestation objects use text).
    public subscript(text key: String) -> CBOR? { self[.text(key)] }

    /// The integer, when it fits an `Int64`.
    public var int: Int64? {
        switch self {
        case .unsigned(let value): return value <= UInt64(Int64.max) ? Int64(value) : nil
        case .negative(let value): return value
        default: return nil
        }
    }

    public var bytes: [UInt8]? {
        if case .bytes(let value) = self { return value }
        return nil
    }

    public var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }
}
