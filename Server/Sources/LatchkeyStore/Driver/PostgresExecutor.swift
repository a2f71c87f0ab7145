import Logging
import NIOCore
import PostgresNIO

/// Runs statements on one PostgreSQL connection, turning `?` placeholders into `$1`, `$2`, ….
///
/// A statement with parameters is prepared once per connection under a name of its own and
/// then only bound and executed: PostgreSQL parses and plans it once, not on every request
/// (parsing and planning were half of PostgreSQL's CPU in `GET /user`). Each parameter is cast
/// to the type of its value (`$1::int8`, `$2::text`), as the unnamed statements declared it;
/// a statement is prepared again for another pattern of types. Statements without parameters
/// (`BEGIN`, DDL, `SELECT 1`) stay unnamed, and so does every statement when the database's
/// `preparedStatements` option is off.
struct PostgresExecutor: SQLExecutor {
    let connection: PostgresConnection
    /// The connection's prepared statements; `nil` to run every statement unnamed.
    let statements: PreparedStatements.Connection?
    let logger: Logger

    @discardableResult
    func query(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        // postgres-nio writes a statement to a closed channel without failing it, and the
        // caller would wait for ever: refuse here instead (the pool's shutdown, a lost server).
        guard !connection.isClosed else { throw ConnectionClosedError() }
        guard let statements, !binds.isEmpty else { return try await unnamed(sql, binds) }
        let key = PreparedStatements.Key(sql: sql, binds: binds)
        let prepared: PreparedQuery
        if let known = statements.statement(for: key) {
            prepared = known
        } else if statements.isFull {
            return try await unnamed(sql, binds)
        } else {
            prepared = try await connection.prepare(query: Self.numbered(sql, binds)).get()
            statements.remember(prepared, for: key)
        }
        let data = binds.map { value -> PostgresData in
            switch value {
            case .null: .null
            case .int(let number): PostgresData(int64: number)
            case .text(let text): PostgresData(string: text)
            }
        }
        return try await prepared.execute(data).get().map(Self.row)
    }

    /// Runs `sql` as an unnamed statement, parsed and planned for this one execution.
    func unnamed(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        var bindings = PostgresBindings(capacity: binds.count)
        for value in binds {
            switch value {
            case .null: bindings.appendNull()
            case .int(let number): bindings.append(number)
            case .text(let text): bindings.append(text)
            }
        }
        let rows = try await connection.query(PostgresQuery(unsafeSQL: Self.numbered(sql), binds: bindings), logger: logger)
        var result: [SQLRow] = []
        for try await row in rows { result.append(try Self.row(row)) }
        return result
    }

    /// Whether the caller runs on the connection's event loop (for tests).
    var isOnConnectionsEventLoop: Bool { connection.eventLoop.inEventLoop }

    /// A row's cells by column name: integers and booleans as `.int`, everything else as text.
    static func row(_ row: PostgresRow) throws -> SQLRow {
        var values: [String: SQLValue] = [:]
        for var cell in row {
            // postgres-nio asks for every result in binary, but a statement prepared through
            // `prepare(query:)` keeps the format of PostgreSQL's description (text).
            cell.format = .binary
            guard cell.bytes != nil else {
                values[cell.columnName] = .null
                continue
            }
            switch cell.dataType {
            case .int8: values[cell.columnName] = .int(try cell.decode(Int64.self))
            case .int4: values[cell.columnName] = .int(Int64(try cell.decode(Int32.self)))
            case .int2: values[cell.columnName] = .int(Int64(try cell.decode(Int16.self)))
            case .bool: values[cell.columnName] = .int(try cell.decode(Bool.self) ? 1 : 0)
            default: values[cell.columnName] = .text(try cell.decode(String.self))
            }
        }
        return SQLRow(values: values)
    }

    /// `?` → `$n`, outside quoted strings (read as bytes: `?` and `'` are ASCII, and a
    /// multi-byte character never contains either byte). With `binds`, each placeholder is
    /// cast to its value's type (`$1::int8`, `$2::text`; a `NULL` is left for PostgreSQL to
    /// infer).
    static func numbered(_ sql: String, _ binds: [SQLValue] = []) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(sql.utf8.count + 16)
        var index = 0
        var quoted = false
        for byte in sql.utf8 {
            if byte == UInt8(ascii: "'") { quoted.toggle() }
            guard byte == UInt8(ascii: "?"), !quoted else {
                output.append(byte)
                continue
            }
            output.append(UInt8(ascii: "$"))
            output.append(contentsOf: String(index + 1).utf8)
            if index < binds.count {
                switch binds[index] {
                case .null: break
                case .int: output.append(contentsOf: "::int8".utf8)
                case .text: output.append(contentsOf: "::text".utf8)
                }
            }
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }
}
