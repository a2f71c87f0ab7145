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
        var raw = bytes(16)
        raw[6] = raw[6] & 0x0F | 0x40
        raw[8] = raw[8] & 0x3F | 0x80
        return UUID(
            uuid: (
                raw[0], raw[1], raw[2], raw[3], raw[4], raw[5], raw[6], raw[7], raw[8], raw[9], raw[10], raw[11], raw[12], raw[13],
                raw[14], raw[15]
            ))
    }

    static func next(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
