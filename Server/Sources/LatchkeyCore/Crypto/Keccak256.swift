/// Keccak-256 as Ethereum uses it (the original Keccak padding `0x01`, not SHA3-256's `0x06`):
/// address derivation and EIP-191 message digests. No library here offers it (swift-crypto has
/// SHA-3 only behind an API that is not on every platform, and not Keccak's padding), so this is
/// one small implementation of the Keccak-f[1600] permutation, tested against the Keccak team's
/// and Ethereum's published vectors (`Keccak256Tests`) and against pycryptodome in the compat
/// tests.
public enum Keccak256 {
    /// The 32-byte digest of `bytes`.
    public static func hash<Bytes: Collection>(_ bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        var state = [UInt64](repeating: 0, count: 25)
        let rate = 136  // (1600 - 2 * 256) / 8
        var block = [UInt8](repeating: 0, count: rate)
        var filled = 0
        for byte in bytes {
            block[filled] = byte
            filled += 1
            if filled == rate {
                absorb(block, into: &state)
                filled = 0
            }
        }
        // Keccak's padding: 0x01 … 0x80 (the two may fall on one byte: 0x81).
        for index in filled..<rate { block[index] = 0 }
        block[filled] ^= 0x01
        block[rate - 1] ^= 0x80
        absorb(block, into: &state)
        var digest = [UInt8]()
        digest.reserveCapacity(32)
        for lane in state.prefix(4) {
            for shift in stride(from: 0, to: 64, by: 8) { digest.append(UInt8(truncatingIfNeeded: lane >> UInt64(shift))) }
        }
        return digest
    }

    static func absorb(_ block: [UInt8], into state: inout [UInt64]) {
        for lane in 0..<(block.count / 8) {
            var value: UInt64 = 0
            for byte in 0..<8 { value |= UInt64(block[lane * 8 + byte]) << UInt64(8 * byte) }
            state[lane] ^= value
        }
        permute(&state)
    }

    static let roundConstants: [UInt64] = [
        0x0000_0000_0000_0001, 0x0000_0000_0000_8082, 0x8000_0000_0000_808A, 0x8000_0000_8000_8000, 0x0000_0000_0000_808B,
        0x0000_0000_8000_0001, 0x8000_0000_8000_8081, 0x8000_0000_0000_8009, 0x0000_0000_0000_008A, 0x0000_0000_0000_0088,
        0x0000_0000_8000_8009, 0x0000_0000_8000_000A, 0x0000_0000_8000_808B, 0x8000_0000_0000_008B, 0x8000_0000_0000_8089,
        0x8000_0000_0000_8003, 0x8000_0000_0000_8002, 0x8000_0000_0000_0080, 0x0000_0000_0000_800A, 0x8000_0000_8000_000A,
        0x8000_0000_8000_8081, 0x8000_0000_0000_8080, 0x0000_0000_8000_0001, 0x8000_0000_8000_8008,
    ]

    /// The rotation of each lane (index x + 5y) in the ρ step.
    static let rotations: [UInt64] = [0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14]

    /// Keccak-f[1600]: 24 rounds of θ, ρ, π, χ, ι.
    static func permute(_ a: inout [UInt64]) {
        var b = [UInt64](repeating: 0, count: 25)
        var c = [UInt64](repeating: 0, count: 5)
        for round in 0..<24 {
            for x in 0..<5 { c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20] }
            for x in 0..<5 {
                let d = c[(x + 4) % 5] ^ rotate(c[(x + 1) % 5], 1)
                for y in stride(from: 0, to: 25, by: 5) { a[y + x] ^= d }
            }
            for x in 0..<5 {
                for y in 0..<5 {
                    // π: lane (x, y) moves to (y, 2x + 3y), rotated by ρ.
                    b[y + 5 * ((2 * x + 3 * y) % 5)] = rotate(a[x + 5 * y], rotations[x + 5 * y])
                }
            }
            for y in stride(from: 0, to: 25, by: 5) {
                for x in 0..<5 { a[y + x] = b[y + x] ^ (~b[y + (x + 1) % 5] & b[y + (x + 2) % 5]) }
            }
            a[0] ^= roundConstants[round]
        }
    }

    @inline(__always) static func rotate(_ value: UInt64, _ by: UInt64) -> UInt64 {
        by == 0 ? value : (value << by) | (value >> (64 - by))
    }
}
