/// Canonical CBOR (shortest heads, definite lengths, pairs in the order given): what a virtual
/// authenticator in tests writes. The server itself only reads CBOR.
public enum CBOREncoder {
    public static func encode(_ item: CBOR) -> [UInt8] {
        switch item {
        case .unsigned(let value): return head(0, value)
        case .negative(let value): return head(1, UInt64(-1 - value))
        case .bytes(let bytes): return head(2, UInt64(bytes.count)) + bytes
        case .text(let text): return head(3, UInt64(text.utf8.count)) + Array(text.utf8)
        case .array(let items): return head(4, UInt64(items.count)) + items.flatMap(encode)
        case .map(let pairs): return head(5, UInt64(pairs.count)) + pairs.flatMap { encode($0.key) + encode($0.value) }
        case .bool(let value): return [value ? 0xf5 : 0xf4]
        case .null: return [0xf6]
        }
    }

    static func head(_ major: UInt8, _ value: UInt64) -> [UInt8] {
        let top = major << 5
        switch value {
        case 0..<24: return [top | UInt8(value)]
        case 24..<0x100: return [top | 24, UInt8(value)]
        case 0x100..<0x1_0000: return [top | 25] + bigEndian(value, 2)
        case 0x1_0000..<0x1_0000_0000: return [top | 26] + bigEndian(value, 4)
        default: return [top | 27] + bigEndian(value, 8)
        }
    }

    static func bigEndian(_ value: UInt64, _ width: Int) -> [UInt8] {
        (0..<width).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }
}
