import Foundation
import Synchronization

/// Where the domain gets random bytes and new ids. The server injects ``SystemRandomSource``;
/// unit tests inject a ``SeededRandomSource`` and get the same values on every run.
public protocol RandomSource: Sendable {
    /// `count` random bytes.
    func bytes(_ count: Int) -> [UInt8]
    /// A new random (version 4) UUID.
    func uuid() -> UUID
}

extension RandomSource {
    /// A new version 7 UUID (RFC 9562): its first 48 bits are `date` in milliseconds since 1970,
    /// the other 74 random. For the rows only their user or the operator sees (sessions, codes,
    /// identities, audit events, outgoing mail): rows made one after another then sit side by
    /// side in their primary key's index, instead of each on a random page that the next durable
    /// commit must log whole. Never for a user's id, which apps show to others: it would tell
    /// when the account was made.
    public func orderedUUID(at date: Date) -> UUID {
        UUID.version7(at: date, random: bytes(10))
    }
}

extension UUID {
    /// The UUID whose 16 bytes are `raw`, as they are.
    init(bytes raw: [UInt8]) {
        precondition(raw.count == 16, "a UUID is 16 bytes")
        self.init(
            uuid: (
                raw[0], raw[1], raw[2], raw[3], raw[4], raw[5], raw[6], raw[7], raw[8], raw[9], raw[10], raw[11], raw[12], raw[13],
                raw[14], raw[15]
            ))
    }

    /// The UUID of 16 bytes, with `version` and RFC 9562's variant set in them.
    init(_ bytes: [UInt8], version: UInt8) {
        var raw = bytes
        raw[6] = raw[6] & 0x0F | version << 4
        raw[8] = raw[8] & 0x3F | 0x80
        self.init(bytes: raw)
    }

    /// A version 7 UUID of `date` and 10 random bytes (74 bits of them used).
    public static func version7(at date: Date, random: [UInt8]) -> UUID {
        let milliseconds = UInt64(max(0, min((date.timeIntervalSince1970 * 1000).rounded(.down), 281_474_976_710_655)))
        var raw = [UInt8](repeating: 0, count: 16)
        for index in 0..<6 { raw[index] = UInt8(truncatingIfNeeded: milliseconds >> (40 - 8 * UInt64(index))) }
        for index in 0..<10 { raw[6 + index] = index < random.count ? random[index] : 0 }
        return UUID(raw, version: 7)
    }
}

/// The system's cryptographically secure generator.
public struct SystemRandomSource: RandomSource {
    public init() {}

    public func bytes(_ count: Int) -> [UInt8] { SecureRandom.bytes(count) }

    public func uuid() -> UUID { UUID() }
}

/// A deterministic generator (SplitMix64) for tests: the same seed gives the same bytes and ids.
/// Never for secrets.
public final class SeededRandomSource: RandomSource {
    private let state: Mutex<UInt64>

    public init(seed: UInt64) {
        state = Mutex(seed)
    }

    public func bytes(_ count: Int) -> [UInt8] {
        state.withLock { state in
            (0..<count).map { _ in UInt8(truncatingIfNeeded: Self.next(&state)) }
        }
    }

    public func uuid() -> UUID {
        UUID(bytes(16), version: 4)
    }

    static func next(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
