import NIOCore
import PostgresNIO
import Synchronization

/// The statements each PostgreSQL connection of a pool has prepared, forgotten when the
/// connection closes.
///
/// A connection runs one transaction at a time, so its own cache is never used by two at once;
/// the lock only guards lookups across connections.
final class PreparedStatements: Sendable {
    /// A statement's SQL and the types of its parameters' values: each pattern is prepared
    /// once, with its parameters cast to those types (a `NULL` left untyped).
    struct Key: Hashable, Sendable {
        let sql: String
        let types: [UInt8]

        init(sql: String, binds: [SQLValue]) {
            self.sql = sql
            self.types = binds.map {
                switch $0 {
                case .null: 0
                case .int: 1
                case .text: 2
                }
            }
        }
    }

    /// How many statements one connection keeps prepared; past that, a new statement runs
    /// unnamed instead of growing the cache (the store's statements number well under this).
    static let limit = 512

    private let connections = Mutex<[PostgresConnection.ID: Connection]>([:])

    /// The cache of `connection`, made on first use and dropped when it closes.
    func of(_ connection: PostgresConnection) -> Connection {
        let (cache, isNew) = connections.withLock { connections in
            if let cache = connections[connection.id] { return (cache, false) }
            let cache = Connection()
            connections[connection.id] = cache
            return (cache, true)
        }
        if isNew {
            let id = connection.id
            connection.closeFuture.whenComplete { [weak self] _ in
                _ = self?.connections.withLock { $0.removeValue(forKey: id) }
            }
        }
        return cache
    }

    /// How many connections have a cache now (for tests).
    var count: Int { connections.withLock { $0.count } }

    /// One connection's prepared statements.
    final class Connection: Sendable {
        private let statements = Mutex<[Key: PreparedQuery]>([:])

        func statement(for key: Key) -> PreparedQuery? {
            statements.withLock { $0[key] }
        }

        func remember(_ statement: PreparedQuery, for key: Key) {
            statements.withLock { $0[key] = statement }
        }

        /// Whether the connection keeps no more statements.
        var isFull: Bool { statements.withLock { $0.count >= PreparedStatements.limit } }

        /// How many statements this connection has prepared (for tests).
        var count: Int { statements.withLock { $0.count } }
    }
}
