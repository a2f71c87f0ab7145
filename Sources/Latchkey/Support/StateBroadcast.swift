import Foundation

/// A value and its changes for any number of observers: each ``stream()`` starts with the value
/// as it is now, then every change, and a finished broadcast ends every stream (a new one then
/// yields the last value and ends).
///
/// Registration is synchronous, so no change falls between asking for a stream and being
/// subscribed to it.
final class StateBroadcast<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    private var finished = false
    private var continuations: [UUID: AsyncStream<Value>.Continuation] = [:]

    init(_ value: Value) { self.value = value }

    /// The value now.
    var current: Value { lock.synchronized { value } }

    /// A new stream: the value now first, then every change.
    func stream() -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self)
        let id = UUID()
        let (now, ended) = lock.synchronized { () -> (Value, Bool) in
            if !finished { continuations[id] = continuation }
            return (value, finished)
        }
        continuation.yield(now)
        if ended {
            continuation.finish()
        } else {
            continuation.onTermination = { [weak self] _ in self?.remove(id) }
        }
        return stream
    }

    /// Sets the value and tells every stream.
    func send(_ new: Value) {
        let listeners = lock.synchronized { () -> [AsyncStream<Value>.Continuation] in
            value = new
            return Array(continuations.values)
        }
        for continuation in listeners { continuation.yield(new) }
    }

    /// Ends every stream; later streams yield the last value and end.
    func finish() {
        let listeners = lock.synchronized { () -> [AsyncStream<Value>.Continuation] in
            finished = true
            defer { continuations = [:] }
            return Array(continuations.values)
        }
        for continuation in listeners { continuation.finish() }
    }

    private func remove(_ id: UUID) {
        _ = lock.synchronized { continuations.removeValue(forKey: id) }
    }
}
