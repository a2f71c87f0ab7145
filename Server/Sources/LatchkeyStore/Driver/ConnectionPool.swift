import Synchronization

/// Hands out connections one caller at a time and queues callers when all are busy.
///
/// SQLite keeps a connection's read transaction (its WAL snapshot) open while *any* statement on
/// it is active, so a connection shared by concurrent queries can show a later query an old
/// snapshot: a write that has returned would look missing. Exclusive checkout prevents that.
///
/// A lock, not an actor: a checkout with a connection idle takes no hop to another executor
/// (``SQLiteDatabase/lookup(_:)`` runs its statements on the caller's thread).
final class ConnectionPool<Connection: Sendable>: Sendable {
    private struct State {
        var idle: [Connection]
        var waiters: [CheckedContinuation<Connection, Never>] = []
    }
    private let state: Mutex<State>

    init(_ connections: [Connection]) {
        precondition(!connections.isEmpty, "a pool needs at least one connection")
        state = Mutex(State(idle: connections))
    }

    func checkout() async -> Connection {
        if let connection = state.withLock({ $0.idle.popLast() }) { return connection }
        return await withCheckedContinuation { waiter in
            let connection = state.withLock { state -> Connection? in
                if let connection = state.idle.popLast() { return connection }
                state.waiters.append(waiter)
                return nil
            }
            if let connection { waiter.resume(returning: connection) }
        }
    }

    func checkin(_ connection: Connection) {
        let waiter = state.withLock { state -> CheckedContinuation<Connection, Never>? in
            guard !state.waiters.isEmpty else {
                state.idle.append(connection)
                return nil
            }
            return state.waiters.removeFirst()
        }
        waiter?.resume(returning: connection)
    }
}
