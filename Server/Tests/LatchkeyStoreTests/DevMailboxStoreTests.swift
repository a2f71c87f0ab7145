import Foundation
import LatchkeyCore
import Testing

@testable import LatchkeyStore

/// The dev mailbox finds a client's mail through an index on the recipient, not a scan of
/// everyone's (the code sign-in polls it), on SQLite and PostgreSQL.
@Suite struct DevMailboxStoreTests {
    @Test func everyRecipientFindsItsMessagesAndOlderMessagesAreFiledToo() async throws {
        try await StoreContractTests.eachStore { store async throws in
            let sql = try #require(store as? SQLAuthStore)
            let base = Date(timeIntervalSince1970: 1_800_000_000)
            // A message from before the recipient index, as an older version stored it.
            try await sql.database.transaction { db in
                try await db.query("DROP TABLE dev_mailbox_recipients", [])
                try await db.query("DELETE FROM schema_migrations WHERE version = 13", [])
                try await db.query(
                    "INSERT INTO dev_mailbox (id, recipients, subject, text_body, html_body, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                    [SQLValue(UUID()), .text(#"["Old@Example.com"]"#), .text("before"), .text(""), .text(""), SQLValue(base)])
            }
            try await store.migrate()
            #expect(try await store.mailbox(to: "old@example.com", limit: 10).map(\.message.subject) == ["before"])

            try await store.appendMailbox(
                EmailMessage(to: ["one@example.com", "Two@Example.com"], subject: "both", text: "", html: ""),
                at: base.addingTimeInterval(1))
            try await store.appendMailbox(
                EmailMessage(to: ["two@example.com"], subject: "second", text: "", html: ""), at: base.addingTimeInterval(2))
            #expect(try await store.mailbox(to: "one@example.com", limit: 10).map(\.message.subject) == ["both"])
            #expect(try await store.mailbox(to: "two@example.com", limit: 10).map(\.message.subject) == ["second", "both"])
            #expect(try await store.mailbox(to: "two@example.com", limit: 1).map(\.message.subject) == ["second"])
            #expect(try await store.mailbox(to: "both@example.com", limit: 10).isEmpty)
            #expect(try await store.mailbox(to: nil, limit: 10).count == 3)
        }
    }

    @Test func aLookupByAddressUsesTheRecipientIndex() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("mailbox-\(UUID().uuidString)/db.sqlite").path
        let database = try await SQLiteDatabase.open(path: path)
        let store = SQLAuthStore(database: database)
        try await store.migrate()
        let plan = try await database.read { db in
            try await db.query("EXPLAIN QUERY PLAN " + SQLAuthStore.mailboxByRecipient, [.text("ada@example.com"), .int(10)])
        }
        try await database.close()
        let details = plan.compactMap { $0.string("detail") }
        #expect(details.contains { $0.contains("dev_mailbox_recipients_idx") }, "\(details)")
        #expect(!details.contains { $0.hasPrefix("SCAN") }, "\(details)")
    }
}
