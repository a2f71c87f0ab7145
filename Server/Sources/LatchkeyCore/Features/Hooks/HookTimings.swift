import Synchronization

/// How long each hook's calls have been taking: a moving average of the answered calls (a
/// failure's time is the timeout's, not the hook's), read where a request that calls no hook
/// must take as long as one that does.
public final class HookTimings: Sendable {
    private let averages = Mutex<[HookName: Duration]>([:])

    public init() {}

    /// Adds a call's duration: the average moves an eighth of the way towards it.
    public func record(_ name: HookName, _ duration: Duration) {
        averages.withLock { averages in
            guard let average = averages[name] else {
                averages[name] = duration
                return
            }
            averages[name] = average + (duration - average) / 8
        }
    }

    /// The average for `name`; `nil` before its first answered call.
    public func typical(_ name: HookName) -> Duration? {
        averages.withLock { $0[name] }
    }
}
