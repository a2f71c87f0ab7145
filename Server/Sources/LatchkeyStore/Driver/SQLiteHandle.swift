import CSQLite
import Foundation

/// An error SQLite reported, with its extended result code.
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// SQLite's extended result code (`SQLITE_CONSTRAINT_UNIQUE` is 2067).
    public let code: Int32
    public let message: String

    public var description: String { "SQLite error \(code): \(message)" }

    /// A `UNIQUE` or `PRIMARY KEY` constraint refused the statement.
    public var isUniqueViolation: Bool {
        code == 2067 /* SQLITE_CONSTRAINT_UNIQUE */ || code == 1555 /* SQLITE_CONSTRAINT_PRIMARYKEY */
    }
}

/// One SQLite connection through the C API, with its prepared statements cached by SQL text.
///
/// Not thread-safe: its owner uses it from one job at a time (the writer's batches run one at a
/// time on their thread; a reader is checked out of its pool).
final class SQLiteHandle: @unchecked Sendable {
    private var db: OpaquePointer?
    private var statements: [String: Statement] = [:]

    private final class Statement {
        let pointer: OpaquePointer
        let columns: [String]
        init(pointer: OpaquePointer, columns: [String]) {
            self.pointer = pointer
            self.columns = columns
        }
    }

    /// Opens (creating if needed) the file at `path`.
    init(path: String) throws {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &db, flags, nil)
        guard status == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(db)
            throw SQLiteError(code: status, message: message)
        }
        sqlite3_extended_result_codes(db, 1)
        self.db = db
    }

    deinit { close() }

    /// Finalizes every cached statement and closes the connection.
    func close() {
        for statement in statements.values { sqlite3_finalize(statement.pointer) }
        statements = [:]
        if let db { sqlite3_close_v2(db) }
        db = nil
    }

    /// Whether the connection is inside a transaction (SQLite rolls one back by itself after some
    /// errors, such as a full disk).
    var isInTransaction: Bool {
        guard let db else { return false }
        return sqlite3_get_autocommit(db) == 0
    }

    /// Runs one statement with `?` placeholders and returns its rows.
    @discardableResult
    func query(_ sql: String, _ binds: [SQLValue]) throws -> [SQLRow] {
        let statement = try prepared(sql)
        let pointer = statement.pointer
        defer {
            sqlite3_reset(pointer)
            sqlite3_clear_bindings(pointer)
        }
        try bind(binds, to: pointer)
        var rows: [SQLRow] = []
        while true {
            let status = sqlite3_step(pointer)
            if status == SQLITE_DONE { return rows }
            guard status == SQLITE_ROW else { throw error(status) }
            var values: [String: SQLValue] = Dictionary(minimumCapacity: statement.columns.count)
            for (index, name) in statement.columns.enumerated() {
                values[name] = value(pointer, Int32(index))
            }
            rows.append(SQLRow(values: values))
        }
    }

    private func prepared(_ sql: String) throws -> Statement {
        if let statement = statements[sql] { return statement }
        guard let db else { throw ConnectionClosedError() }
        var pointer: OpaquePointer?
        var trailing = false
        let status = sql.withCString { text in
            var tail: UnsafePointer<CChar>?
            let status = sqlite3_prepare_v3(db, text, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &pointer, &tail)
            if let tail { trailing = !String(cString: tail).allSatisfy { $0.isWhitespace || $0 == ";" } }
            return status
        }
        guard status == SQLITE_OK, let pointer else {
            sqlite3_finalize(pointer)
            throw error(status)
        }
        if trailing {
            sqlite3_finalize(pointer)
            throw SQLiteError(code: SQLITE_MISUSE, message: "one statement per query: \(sql)")
        }
        let columns = (0..<sqlite3_column_count(pointer)).map { String(cString: sqlite3_column_name(pointer, $0)) }
        let statement = Statement(pointer: pointer, columns: columns)
        statements[sql] = statement
        return statement
    }

    private func bind(_ binds: [SQLValue], to pointer: OpaquePointer) throws {
        let expected = Int(sqlite3_bind_parameter_count(pointer))
        guard expected == binds.count else {
            throw SQLiteError(code: SQLITE_RANGE, message: "\(binds.count) values for \(expected) parameters")
        }
        for (offset, value) in binds.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch value {
            case .null:
                status = sqlite3_bind_null(pointer, index)
            case .int(let number):
                status = sqlite3_bind_int64(pointer, index, number)
            case .text(var text):
                status = text.withUTF8 { bytes in
                    guard let base = bytes.baseAddress else { return sqlite3_bind_text(pointer, index, "", 0, Self.transient) }
                    return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                        sqlite3_bind_text(pointer, index, $0, Int32(bytes.count), Self.transient)
                    }
                }
            }
            guard status == SQLITE_OK else { throw error(status) }
        }
    }

    private func value(_ pointer: OpaquePointer, _ index: Int32) -> SQLValue {
        switch sqlite3_column_type(pointer, index) {
        case SQLITE_NULL:
            return .null
        case SQLITE_INTEGER:
            return .int(sqlite3_column_int64(pointer, index))
        case SQLITE_FLOAT:
            return .int(Int64(sqlite3_column_double(pointer, index)))
        default:
            // Text, and blobs read as UTF-8 text as the schema stores none.
            let count = Int(sqlite3_column_bytes(pointer, index))
            guard count > 0, let bytes = sqlite3_column_text(pointer, index) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self))
        }
    }

    private func error(_ status: Int32) -> SQLiteError {
        guard let db else { return SQLiteError(code: status, message: "connection closed") }
        return SQLiteError(code: sqlite3_extended_errcode(db), message: String(cString: sqlite3_errmsg(db)))
    }

    /// `SQLITE_TRANSIENT`: SQLite copies the bound bytes before the call returns.
    nonisolated(unsafe) private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
