import ArgumentParser
import Foundation
import LatchkeyAPI
import LatchkeyCore
import LatchkeyServer

/// `latchkey audit`: the newest security events, filtered, optionally followed as they happen.
struct Audit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the audit log, newest last (works with the server stopped).",
        discussion: "Actions: \(AuditAction.allCases.map(\.rawValue).joined(separator: ", ")).")

    @OptionGroup var output: Users.Output
    @Option(help: "Only events about this user (id, email or phone; a deleted user by id).") var user: String?
    @Option(help: "Only these actions (repeat, or separate with commas).") var action: [String] = []
    @Option(help: "How many of the newest events to show (1–1000).") var limit = 20
    @Flag(help: "Keep printing new events as they are written (Ctrl-C stops).") var follow = false
    @Option(help: "Seconds between checks with --follow.") var interval = 1.0

    func run() async throws {
        guard (1...1000).contains(limit) else { throw ValidationError("--limit must be 1–1000") }
        guard interval > 0 else { throw ValidationError("--interval must be positive") }
        try await Users.withUseCases(output.data) { useCases in
            var userID = user
            if let key = user, UUID(text: key) == nil { userID = try await Users.find(key, useCases).id.uuidString }
            let actions = action.flatMap { $0.split(separator: ",").map(String.init) }
            let log = AuditLog(store: useCases.store)
            let (newest, _) = try await log.page(1, perPage: limit, userID: userID, actions: actions)
            if !output.json { printHeader() }
            try show(newest.reversed())
            guard follow else { return }
            // Each round reads everything written since a little before the newest event seen
            // (a transaction can commit after a later one began), and prints what it has not.
            var seen = Dictionary(newest.map { ($0.id, $0.createdAt) }, uniquingKeysWith: { first, _ in first })
            var cursor = newest.first?.createdAt ?? Date()
            while true {
                try await Task.sleep(for: .seconds(interval))
                let since = cursor.addingTimeInterval(-Self.overlap)
                var fresh: [AuditLogEntry] = []
                for page in 1... {
                    let (entries, _) = try await log.page(page, perPage: 1000, userID: userID, actions: actions, since: since)
                    fresh += entries.filter { seen[$0.id] == nil }
                    if entries.count < 1000 { break }
                }
                fresh.sort { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
                try show(fresh)
                for entry in fresh { seen[entry.id] = entry.createdAt }
                cursor = max(cursor, fresh.last?.createdAt ?? cursor)
                seen = seen.filter { $0.value >= since }
            }
        }
    }

    /// How far back each `--follow` round looks past the newest event it saw.
    static let overlap: TimeInterval = 10

    func show(_ entries: some Sequence<AuditLogEntry>) throws {
        for entry in entries {
            if output.json {
                print(String(decoding: try WireJSON.makeEncoder().encode(entry), as: UTF8.self))
            } else {
                printRow(entry)
            }
        }
        fflush(nil)
    }

    static let columns = [("TIME", 19), ("ACTION", 20), ("ACTOR", 28), ("IP", 15)]

    func printHeader() {
        print(Self.columns.map { $0.0.padding(toLength: $0.1, withPad: " ", startingAt: 0) }.joined(separator: "  ") + "  DETAILS")
    }

    func printRow(_ entry: AuditLogEntry) {
        let details = entry.payload.traits.sorted { $0.key < $1.key }.map { "\($0.key)=\(Self.text($0.value))" }
        let values = [
            String(WireJSON.formatDate(entry.createdAt).prefix(19)), entry.payload.action, entry.payload.actorUsername, entry.ipAddress,
        ]
        let cells = zip(values, Self.columns).map { value, column in value.padding(toLength: column.1, withPad: " ", startingAt: 0) }
        print(
            (cells.joined(separator: "  ") + "  " + details.joined(separator: " ")).replacingOccurrences(
                of: #"\s+$"#, with: "", options: .regularExpression))
    }

    static func text(_ value: JSONValue) -> String {
        switch value {
        case .string(let string): string
        case .null: "-"
        default: String(decoding: (try? JSONEncoder().encode(value)) ?? Data(), as: UTF8.self)
        }
    }
}
