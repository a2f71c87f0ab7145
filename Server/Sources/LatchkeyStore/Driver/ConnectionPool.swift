/// Hands out connections one caller at a time and queues callers when all are busy.
///
/// SQLite keeps a connection's read transaction (its WAL snapshot) open while *any* statement on
/// it is active, so a connection shared by concurrent queries can show a later query an old
/// snapshot: a write that has returned would look missing. Exclusive checkout prevents that.
actor ConnectionPool<Connection: Sendable> {
    private var idle: [Connection]
    private var waiters: [CheckedContinuation<Connection, Never>] = []

    init(_ connections: [Connection]) {
        precondition(!connections.isEmpty, "a pool needs at least one connection")
        self.idle = connections
    }

    func checkout() async -> Connection {
        if let connection = idle.popLast() { return connection }
        return await withCheckedContinuation { waiters.append($0) }
    }

    func checkin(_ connection: Connection) {
        if waiters.isEmpty {
            idle.append(connection)
        } else {
            waiters.removeFirst().resume(returning: connection)
        }
    }
}
