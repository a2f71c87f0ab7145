import Testing

@testable import LatchkeyWebAuthn

/// The strict CBOR reader: RFC 8949's examples of the kinds WebAuthn uses, every non-canonical
/// or unsupported form refused, and random, truncated and mutated inputs that never trap or hang.
@Suite struct CBORDecoderTests {
    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    @Test(arguments: [
        ("00", CBOR.unsigned(0)),
        ("17", .unsigned(23)),
        ("1818", .unsigned(24)),
        ("1903e8", .unsigned(1000)),
        ("1bffffffffffffffff", .unsigned(.max)),
        ("20", .negative(-1)),
        ("3903e7", .negative(-1000)),
        ("4401020304", .bytes([1, 2, 3, 4])),
        ("6449455446", .text("IETF")),
        ("62c3bc", .text("ü")),
        ("8201820203", .array([.unsigned(1), .array([.unsigned(2), .unsigned(3)])])),
        ("a201020304", .map([(.unsigned(1), .unsigned(2)), (.unsigned(3), .unsigned(4))])),
        ("a26161016162820203", .map([(.text("a"), .unsigned(1)), (.text("b"), .array([.unsigned(2), .unsigned(3)]))])),
        ("f4", .bool(false)), ("f5", .bool(true)), ("f6", .null),
    ])
    func rfcExamplesDecode(_ text: String, _ expected: CBOR) throws {
        #expect(try CBORDecoder().decode(Self.hex(text)) == expected)
        #expect(CBOREncoder.encode(expected) == Self.hex(text))
    }

    @Test(arguments: [
        ("", CBORError.truncated),
        ("1817", .notCanonical),
        ("190017", .notCanonical),
        ("1a000000ff", .notCanonical),
        ("1c", .malformed),
        ("5f4201020344ff", .indefiniteLength),
        ("9fff", .indefiniteLength),
        ("3bffffffffffffffff", .outOfRange),
        ("a201020103", .duplicateKey),
        ("a182010203", .invalidMapKey),
        ("a1f503", .invalidMapKey),
        ("62c328", .invalidText),
        ("c074323031332d30332d32315432303a30343a30305a", .unsupported("tags")),
        ("f93c00", .unsupported("floating point")),
        ("fb3ff199999999999a", .unsupported("floating point")),
        ("f7", .unsupported("simple value 23")),
        ("1901", .truncated),
        ("5bffffffffffffffff01", .truncated),
        ("9bffffffffffffffff", .truncated),
        ("bb7fffffffffffffff", .truncated),
        ("0000", .trailingBytes),
    ])
    func nonCanonicalAndUnsupportedFormsAreRefused(_ text: String, _ error: CBORError) {
        #expect(throws: error) { try CBORDecoder().decode(Self.hex(text)) }
    }

    @Test func nestingIsBounded() {
        let deep = [UInt8](repeating: 0x81, count: 10_000) + [0x00]
        #expect(throws: CBORError.tooDeep) { try CBORDecoder().decode(deep) }
        let fine = [UInt8](repeating: 0x81, count: 16) + [0x00]
        #expect(throws: Never.self) { try CBORDecoder().decode(fine) }
    }

    /// An attestation object's shape, truncated at every length and mutated at every byte:
    /// each answer is an item or an error, never a trap.
    @Test func truncatedAndMutatedAttestationsNeverTrap() {
        let authData = [UInt8](repeating: 0xab, count: 37) + CBOREncoder.encode(.map([(.unsigned(1), .unsigned(2))]))
        let object = CBOREncoder.encode(
            .map([(.text("fmt"), .text("none")), (.text("attStmt"), .map([])), (.text("authData"), .bytes(authData))]))
        #expect(throws: Never.self) { try CBORDecoder().decode(object) }
        for length in 0..<object.count {
            #expect(throws: CBORError.self) { try CBORDecoder().decode(Array(object.prefix(length))) }
        }
        for index in object.indices {
            for flip: UInt8 in [0x01, 0x20, 0x80, 0xff] {
                var mutated = object
                mutated[index] ^= flip
                _ = try? CBORDecoder().decode(mutated)
            }
        }
    }

    /// Random inputs (a fixed seed, so a failure repeats): decoded or refused, and quickly.
    @Test func randomInputsAreDecodedOrRefused() {
        var generator = SplitMix64(seed: 0x5eed)
        var decoded = 0
        for _ in 0..<20_000 {
            let length = Int(generator.next() % 64)
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            if (try? CBORDecoder().decode(bytes)) != nil { decoded += 1 }
        }
        #expect(decoded > 0)
    }
}

/// A small deterministic generator for the fuzz tests.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
