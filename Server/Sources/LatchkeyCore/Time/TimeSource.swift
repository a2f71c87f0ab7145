import Foundation
import Synchronization

/// Where the domain reads the current time. Tests inject a ``ManualTimeSource``.
public protocol TimeSource: Sendable {
    /// The current time.
    func now() -> Date
}

/// The system's wall clock.
public struct SystemTimeSource: TimeSource {
    public init() {}
    public func now() -> Date { Date() }
}

/// A clock that moves only when told to, for tests.
public final class ManualTimeSource: TimeSource {
    private let current: Mutex<Date>

    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        self.current = Mutex(start)
    }

    public func now() -> Date { current.withLock { $0 } }

    /// Moves the clock forward.
    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 += seconds }
    }
}
