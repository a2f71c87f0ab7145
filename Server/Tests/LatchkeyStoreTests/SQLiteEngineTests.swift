import Foundation
import Synchronization
import Testing

@testable import LatchkeyStore

/// The SQLite engine: group commit, a failing transaction inside a shared batch, reads from one
/// snapshot on read-only connections, closing under load, hostile SQL input.
@Suite(.timeLimit(.minutes(2))) struct SQLiteEngineTests {
    static func withDatabase(_ body: (SQLiteDatabase, String) async throws -> Void) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("engine-\(UUID().uuidString)/db.sqlite").path
        let database = try await SQLiteDatabase.open(path: path)
        do {
            _ = try await database.transaction { try await $0.query("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)", []) }
            try await body(database, path)
        } catch {
            try await database.close()
            throw error
        }
        try await database.close()
    }

    static func count(_ database: SQLiteDatabase) async throws -> Int64 {
        try await database.read { try await $0.query("SELECT COUNT(*) AS n FROM t", []).first?.int("n") ?? -1 }
    }

    /// Transactions that arrive while one is running share the next commit, and each is answered
    /// only with its own result once that commit is done.
    @Test func transactionsQueuedBehindOneShareTheNextCommit() async throws {
        try await Self.withDatabase { database, _ in
            let gate = Gate()
            let before = database.commits
            let first = Task {
                try await database.transaction { db in
                    try await db.query("INSERT INTO t (id, v) VALUES (0, 'first')", [])
                    await gate.wait()
                    return 0
                }
            }
            while !gate.isWaiting { try await Task.sleep(for: .milliseconds(1)) }
            let others = (1...20).map { index in
                Task {
                    try await database.transaction { db in
                        try await db.query("INSERT INTO t (id, v) VALUES (?, ?)", [.int(Int64(index)), .text("v\(index)")])
                        return index
                    }
                }
            }
            try await Task.sleep(for: .milliseconds(50))  // let the 20 queue behind the first
            gate.open()
            #expect(try await first.value == 0)
            for (offset, task) in others.enumerated() { #expect(try await task.value == offset + 1) }
            #expect(database.commits - before == 2)
            #expect(try await Self.count(database) == 21)
        }
    }

    /// A transaction that throws inside a batch leaves none of its writes and takes none of the
    /// others' with it; a unique violation is reported as one.
    @Test func aFailingTransactionInABatchRollsBackAloneAndNothingElse() async throws {
        try await Self.withDatabase { database, path in
            _ = try await database.transaction { try await $0.query("INSERT INTO t (id, v) VALUES (1, 'one')", []) }
            let outcomes = Shared<[Int: String]>([:])
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 2...41 {
                    group.addTask {
                        do {
                            try await database.transaction { db in
                                try await db.query("INSERT INTO t (id, v) VALUES (?, 'x')", [.int(Int64(index + 1000))])
                                // Every third one collides with row 1 after its first write.
                                let id = index % 3 == 0 ? 1 : index
                                try await db.query("INSERT INTO t (id, v) VALUES (?, 'y')", [.int(Int64(id))])
                            }
                            outcomes.withLock { $0[index] = "ok" }
                        } catch {
                            outcomes.withLock { $0[index] = database.isUniqueViolation(error) ? "unique" : "\(error)" }
                        }
                    }
                }
                try await group.waitForAll()
            }
            let answers = outcomes.withLock { $0 }
            for index in 2...41 { #expect(answers[index] == (index % 3 == 0 ? "unique" : "ok"), "transaction \(index)") }
            // Reopened from disk: exactly the writes of the transactions answered "ok".
            try await database.close()
            let reopened = try await SQLiteDatabase.open(path: path)
            let ids = try await reopened.read { db in try await db.query("SELECT id FROM t ORDER BY id", []).compactMap { $0.int("id") } }
            let kept: [Int64] = (2...41).filter { $0 % 3 != 0 }.map { Int64($0) }
            let expected: [Int64] = [1] + kept + kept.map { $0 + 1000 }
            #expect(ids == expected.sorted())
            try await reopened.close()
        }
    }

    /// Reader connections refuse writes, and one read sees one snapshot even while the writer
    /// commits between its statements.
    @Test func readsAreReadOnlyAndSeeOneSnapshot() async throws {
        try await Self.withDatabase { database, _ in
            await #expect(throws: SQLiteError.self) {
                try await database.read { try await $0.query("INSERT INTO t (id, v) VALUES (7, 'no')", []) }
            }
            let gate = Gate()
            let read = Task {
                try await database.read { db in
                    let before = try await db.query("SELECT COUNT(*) AS n FROM t", []).first?.int("n")
                    await gate.wait()
                    let after = try await db.query("SELECT COUNT(*) AS n FROM t", []).first?.int("n")
                    return [before, after]
                }
            }
            while !gate.isWaiting { try await Task.sleep(for: .milliseconds(1)) }
            _ = try await database.transaction { try await $0.query("INSERT INTO t (id, v) VALUES (8, 'yes')", []) }
            gate.open()
            #expect(try await read.value == [0, 0])
            #expect(try await Self.count(database) == 1)
        }
    }

    /// Hostile statements and values: more than one statement, the wrong number of values,
    /// NUL bytes and non-ASCII text, all answered with an error or stored exactly.
    @Test func hostileStatementsAndValues() async throws {
        try await Self.withDatabase { database, _ in
            await #expect(throws: SQLiteError.self) {
                _ = try await database.transaction { try await $0.query("DELETE FROM t; DROP TABLE t", []) }
            }
            await #expect(throws: SQLiteError.self) {
                _ = try await database.transaction { try await $0.query("INSERT INTO t (id, v) VALUES (?, ?)", [.int(1)]) }
            }
            await #expect(throws: SQLiteError.self) {
                _ = try await database.transaction { try await $0.query("SELEC nonsense", []) }
            }
            let texts = ["", "a\u{0}b", "é✓🔑", String(repeating: "z", count: 100_000), "'); DROP TABLE t; --"]
            for (index, text) in texts.enumerated() {
                _ = try await database.transaction {
                    try await $0.query("INSERT INTO t (id, v) VALUES (?, ?)", [.int(Int64(index)), .text(text)])
                }
            }
            let stored = try await database.read { db in try await db.query("SELECT v FROM t ORDER BY id", []).compactMap { $0.string("v") }
            }
            #expect(stored == texts)
        }
    }

    /// Closing while transactions and reads are under way lets them finish or refuses them with
    /// an error; nothing waits for ever, and what was answered as written is on disk.
    @Test func closingUnderLoadEndsEveryCaller() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("engine-\(UUID().uuidString)/db.sqlite").path
        let database = try await SQLiteDatabase.open(path: path)
        _ = try await database.transaction { try await $0.query("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)", []) }
        let written = Shared<[Int64]>([])
        let workers = (0..<8).map { worker in
            Task {
                for round in 0..<200 {
                    let id = Int64(worker * 1000 + round)
                    do {
                        _ = try await database.transaction { try await $0.query("INSERT INTO t (id, v) VALUES (?, 'w')", [.int(id)]) }
                        written.withLock { $0.append(id) }
                        _ = try await Self.count(database)
                    } catch { return }
                }
            }
        }
        try await Task.sleep(for: .milliseconds(30))
        try await database.close()
        for worker in workers { await worker.value }
        let reopened = try await SQLiteDatabase.open(path: path)
        let ids = Set(try await reopened.read { db in try await db.query("SELECT id FROM t", []).compactMap { $0.int("id") } })
        #expect(Set(written.withLock { $0 }).isSubset(of: ids))
        try await reopened.close()
    }
}

/// Holds a task until opened.
private final class Gate: Sendable {
    private let state = Mutex<(waiting: Bool, open: Bool, continuation: CheckedContinuation<Void, Never>?)>((false, false, nil))

    var isWaiting: Bool { state.withLock { $0.waiting } }

    func wait() async {
        await withCheckedContinuation { continuation in
            let resume = state.withLock { state in
                state.waiting = true
                if state.open { return true }
                state.continuation = continuation
                return false
            }
            if resume { continuation.resume() }
        }
    }

    func open() {
        let continuation = state.withLock { state in
            state.open = true
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume()
    }
}

/// A value shared between tasks.
final class Shared<Value: Sendable>: Sendable {
    private let value: Mutex<Value>
    init(_ value: Value) { self.value = Mutex(value) }
    func withLock<T>(_ body: (inout Value) -> T) -> T { value.withLock { body(&$0) } }
}
