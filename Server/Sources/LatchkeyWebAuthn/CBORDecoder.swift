/// A strict CBOR reader for WebAuthn (the CTAP2 canonical form): definite lengths only, integers
/// and lengths in their shortest encoding, map keys integers or text and never repeated, text
/// valid UTF-8, no tags, no floating point, simple values only `false`, `true` and `null`, nesting
/// at most ``maxDepth`` deep, and no length beyond the bytes that remain. Anything else is a
/// ``CBORError``: it never traps, allocates what the input only claims, or loops.
public struct CBORDecoder: Sendable {
    /// How deep arrays and maps may nest.
    public var maxDepth: Int

    public init(maxDepth: Int = 16) {
        self.maxDepth = maxDepth
    }

    /// The one item `bytes` holds; ``CBORError/trailingBytes`` when more follows.
    public func decode(_ bytes: [UInt8]) throws(CBORError) -> CBOR {
        let (item, used) = try decodePrefix(bytes[...])
        guard used == bytes.count else { throw .trailingBytes }
        return item
    }

    /// The item at the start of `bytes` and how many bytes it took (authenticator data carries
    /// a COSE key followed by extensions).
    public func decodePrefix(_ bytes: ArraySlice<UInt8>) throws(CBORError) -> (CBOR, Int) {
        var reader = Reader(bytes: bytes)
        let item = try reader.item(depth: 0, maxDepth: maxDepth)
        return (item, reader.offset - bytes.startIndex)
    }

    struct Reader {
        let bytes: ArraySlice<UInt8>
        var offset: Int

        init(bytes: ArraySlice<UInt8>) {
            self.bytes = bytes
            self.offset = bytes.startIndex
        }

        var remaining: Int { bytes.endIndex - offset }

        mutating func byte() throws(CBORError) -> UInt8 {
            guard offset < bytes.endIndex else { throw .truncated }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func take(_ count: Int) throws(CBORError) -> ArraySlice<UInt8> {
            guard count >= 0, count <= remaining else { throw .truncated }
            defer { offset += count }
            return bytes[offset..<(offset + count)]
        }

        /// The argument of an initial byte's additional information, shortest form required.
        mutating func argument(_ info: UInt8) throws(CBORError) -> UInt64 {
            switch info {
            case 0..<24: return UInt64(info)
            case 24:
                let value = UInt64(try byte())
                guard value >= 24 else { throw .notCanonical }
                return value
            case 25, 26, 27:
                let width = 1 << (info - 24)
                var value: UInt64 = 0
                for byte in try take(width) { value = value << 8 | UInt64(byte) }
                let floor: UInt64 = info == 25 ? 0x100 : info == 26 ? 0x1_0000 : 0x1_0000_0000
                guard value >= floor else { throw .notCanonical }
                return value
            case 31: throw .indefiniteLength
            default: throw .malformed
            }
        }

        /// A length that the remaining bytes could hold, at `minimumSize` bytes per element.
        mutating func length(_ info: UInt8, minimumSize: Int) throws(CBORError) -> Int {
            let value = try argument(info)
            guard value <= UInt64(remaining / max(minimumSize, 1)) else { throw .truncated }
            return Int(value)
        }

        mutating func item(depth: Int, maxDepth: Int) throws(CBORError) -> CBOR {
            let initial = try byte()
            let major = initial >> 5
            let info = initial & 0x1f
            switch major {
            case 0: return .unsigned(try argument(info))
            case 1:
                let value = try argument(info)
                guard value <= UInt64(Int64.max) else { throw .outOfRange }
                return .negative(-1 - Int64(value))
            case 2: return .bytes(Array(try take(try length(info, minimumSize: 1))))
            case 3:
                let raw = try take(try length(info, minimumSize: 1))
                guard let text = String(validating: raw, as: UTF8.self) else { throw .invalidText }
                return .text(text)
            case 4:
                guard depth < maxDepth else { throw .tooDeep }
                let count = try length(info, minimumSize: 1)
                var items: [CBOR] = []
                items.reserveCapacity(count)
                for _ in 0..<count { items.append(try item(depth: depth + 1, maxDepth: maxDepth)) }
                return .array(items)
            case 5:
                guard depth < maxDepth else { throw .tooDeep }
                let count = try length(info, minimumSize: 2)
                var pairs: [(key: CBOR, value: CBOR)] = []
                pairs.reserveCapacity(count)
                for _ in 0..<count {
                    let key = try item(depth: depth + 1, maxDepth: maxDepth)
                    switch key {
                    case .unsigned, .negative, .text: break
                    default: throw .invalidMapKey
                    }
                    guard !pairs.contains(where: { $0.key == key }) else { throw .duplicateKey }
                    pairs.append((key, try item(depth: depth + 1, maxDepth: maxDepth)))
                }
                return .map(pairs)
            case 6: throw .unsupported("tags")
            default:
                switch info {
                case 20: return .bool(false)
                case 21: return .bool(true)
                case 22: return .null
                case 25, 26, 27: throw .unsupported("floating point")
                case 31: throw .indefiniteLength
                default: throw .unsupported("simple value \(info)")
                }
            }
        }
    }
}

/// Why bytes are not the CBOR WebAuthn accepts.
public enum CBORError: Error, Sendable, Equatable {
    case truncated
    case trailingBytes
    case indefiniteLength
    case notCanonical
    case malformed
    case outOfRange
    case invalidText
    case invalidMapKey
    case duplicateKey
    case tooDeep
    case unsupported(String)
}
