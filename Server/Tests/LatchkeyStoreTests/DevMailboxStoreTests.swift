import Foundation
import LatchkeyCore
import Synchronization
import Testing

@testable import LatchkeyStore

/// The dev mailbox finds a client's mail through an index on the recipient, not a scan of
/// everyone's (the code sign-in polls it), on SQLite and PostgreSQL.
@Suite struct DevMailboxStoreTests {
    /// The narrow stores the mailbox tests need (issue #38): the in-memory store serves them too.
    typealias Store = any OutboxStore & DevMailboxStore

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

    @Test func aClaimedBatchIsFiledAndMarkedSentInOneStep() async throws {
        try await StoreContractTests.eachStore(memory: InMemoryStore() as Store) { store async throws in
            let now = Date()
            let mails = (0..<3).map { StoreContractTests.mail(to: "batch\($0)@example.com", due: now.addingTimeInterval(-1)) }
            try await store.enqueueOutbox(mails)
            let claimed = try await store.claimOutbox(now: now, leaseUntil: now.addingTimeInterval(60), limit: 10)
            #expect(Set(claimed.map(\.id)) == Set(mails.map(\.id)))
            try await store.deliverToMailbox(
                claimed.map { ($0.id, EmailMessage(to: [$0.recipient], subject: "code", text: "", html: "")) }, at: now)
            for index in 0..<3 {
                #expect(try await store.mailbox(to: "batch\(index)@example.com", limit: 10).count == 1)
            }
            #expect(try await store.pendingOutbox(limit: 10).isEmpty)
            #expect(
                try await store.claimOutbox(now: now.addingTimeInterval(120), leaseUntil: now.addingTimeInterval(180), limit: 10).isEmpty)
            try await store.deliverToMailbox([], at: now)
        }
    }

    /// The mailbox's contract on the three stores: newest first, a recipient found whatever its
    /// case, a limit kept; a claimed message filed and marked sent in one step, one it cannot
    /// open left claimed for the outbox.
    @Test func theMailboxContractHoldsOnEveryStore() async throws {
        try await StoreContractTests.eachStore(memory: InMemoryStore() as Store) { store async throws in
            let base = Date(timeIntervalSince1970: 1_800_000_000)
            try await store.appendMailbox(EmailMessage(to: ["Ada@Example.com"], subject: "first", text: "", html: ""), at: base)
            try await store.appendMailbox(
                EmailMessage(to: ["ada@example.com", "bob@example.com"], subject: "second", text: "", html: ""),
                at: base.addingTimeInterval(1))
            #expect(try await store.mailbox(to: "ADA@example.com", limit: 10).map(\.message.subject) == ["second", "first"])
            #expect(try await store.mailbox(to: "ada@example.com", limit: 1).map(\.message.subject) == ["second"])
            #expect(try await store.mailbox(to: "bob@example.com", limit: 10).map(\.message.subject) == ["second"])

            let now = Date()
            let readable = StoreContractTests.mail(to: "readable@example.com", due: now.addingTimeInterval(-1))
            let unreadable = StoreContractTests.mail(to: "unreadable@example.com", due: now.addingTimeInterval(-1))
            try await store.enqueueOutbox([readable, unreadable])
            let round = try await store.claimIntoMailbox(now: now, leaseUntil: now.addingTimeInterval(60), limit: 10) { record in
                record.recipient == "readable@example.com" ? EmailMessage(to: [record.recipient], subject: "code", text: "", html: "") : nil
            }
            #expect(round.delivered == 1 && round.unread.map(\.id) == [unreadable.id])
            #expect(try await store.mailbox(to: "readable@example.com", limit: 10).map(\.message.subject) == ["code"])
            #expect(try await store.pendingOutbox(limit: 10).map(\.id) == [unreadable.id])
            // The unread one stays claimed until its lease ends.
            #expect(try await store.claimOutbox(now: now, leaseUntil: now.addingTimeInterval(60), limit: 10).isEmpty)
        }
    }

    /// A batch mailer that fails its batch, or not, and counts what it was handed.
    final class FlakyBatchMailer: BatchMailer {
        let inner: DevMailbox
        let failBatches: Bool
        let batches = Mutex(0)
        let singles = Mutex(0)
        init(inner: DevMailbox, failBatches: Bool) {
            self.inner = inner
            self.failBatches = failBatches
        }
        func send(_ message: EmailMessage) async throws {
            singles.withLock { $0 += 1 }
            try await inner.send(message)
        }
        func deliver(_ batch: [(record: OutboxRecord, message: EmailMessage)]) async throws {
            batches.withLock { $0 += 1 }
            if failBatches { throw CancellationError() }
            try await inner.deliver(batch)
        }
    }

    @Test func theOutboxHandsTheDevMailboxWholeBatchesAndFallsBackOneByOne() async throws {
        for failBatches in [false, true] {
            try await StoreContractTests.eachStore(memory: InMemoryStore() as Store) { store async throws in
                let time = ManualTimeSource(Date())
                let sealer = OutboxSealer(serverSecret: Array(repeating: 3, count: 32))
                let mailer = FlakyBatchMailer(inner: DevMailbox(store: store, time: time), failBatches: failBatches)
                let delivery = OutboxDelivery(store: store, mailer: mailer, sealer: sealer, time: time)
                let records = try (0..<4).map { index in
                    OutboxRecord(
                        recipient: "fallback\(index)@example.com",
                        payload: try sealer.seal(EmailMessage(to: ["fallback\(index)@example.com"], subject: "s", text: "t", html: "h")),
                        nextAttemptAt: time.now(), createdAt: time.now())
                }
                try await store.enqueueOutbox(records)
                #expect(try await delivery.deliverDue() == 4)
                #expect(mailer.batches.withLock { $0 } == 1)
                #expect(mailer.singles.withLock { $0 } == (failBatches ? 4 : 0))
                for index in 0..<4 { #expect(try await store.mailbox(to: "fallback\(index)@example.com", limit: 5).count == 1) }
                #expect(try await store.pendingOutbox(limit: 10).isEmpty)
            }
        }
    }

    /// With no mail transport, queued mail is filed by the transaction that queues it, readable at
    /// once with nothing left in the outbox; a payload it cannot open is queued for the outbox,
    /// which gives it up.
    @Test func mailIsFiledByTheTransactionThatQueuesIt() async throws {
        try await StoreContractTests.eachStore { plain async throws in
            let time = ManualTimeSource(Date())
            let sealer = OutboxSealer(serverSecret: Array(repeating: 3, count: 32))
            let foreign = OutboxSealer(serverSecret: Array(repeating: 4, count: 32))
            let store = SQLAuthStore(database: try #require(plain as? SQLAuthStore).database, devMailboxSealer: sealer)
            let records = try [sealer, foreign].enumerated().map { index, key in
                OutboxRecord(
                    recipient: "inline\(index)@example.com",
                    payload: try key.seal(EmailMessage(to: ["inline\(index)@example.com"], subject: "s", text: "t\(index)", html: "h")),
                    nextAttemptAt: time.now(), createdAt: time.now())
            }
            try await store.enqueueOutbox(records)
            #expect(try await store.mailbox(to: "inline0@example.com", limit: 5).map(\.message.text) == ["t0"])
            #expect(try await store.mailbox(to: "inline1@example.com", limit: 5).isEmpty)
            #expect(try await store.pendingOutbox(limit: 10).map(\.id) == [records[1].id])
            let delivery = OutboxDelivery(store: store, mailer: DevMailbox(store: store, time: time), sealer: sealer, time: time)
            #expect(try await delivery.deliverDue() == 1)
            #expect(try await store.pendingOutbox(limit: 10).isEmpty)
            #expect(try await store.mailbox(to: "inline1@example.com", limit: 5).isEmpty)
        }
    }

    /// The dev mailbox claims, files and marks sent in one transaction; a message that cannot be
    /// read is left claimed and given up on by the one-at-a-time path.
    @Test func theDevMailboxClaimsAndFilesInOneStep() async throws {
        try await StoreContractTests.eachStore { store async throws in
            let time = ManualTimeSource(Date())
            let sealer = OutboxSealer(serverSecret: Array(repeating: 3, count: 32))
            let foreign = OutboxSealer(serverSecret: Array(repeating: 4, count: 32))
            let delivery = OutboxDelivery(
                store: store, mailer: DevMailbox(store: store, time: time), sealer: sealer, time: time, batchSize: 3)
            let records = try (0..<5).map { index in
                OutboxRecord(
                    recipient: "claim\(index)@example.com",
                    payload: try (index == 2 ? foreign : sealer).seal(
                        EmailMessage(to: ["claim\(index)@example.com"], subject: "s", text: "t\(index)", html: "h")),
                    nextAttemptAt: time.now(), createdAt: time.now())
            }
            try await store.enqueueOutbox(records)
            #expect(try await delivery.deliverDue() == 5)
            for index in 0..<5 {
                let filed = try await store.mailbox(to: "claim\(index)@example.com", limit: 5)
                #expect(filed.map(\.message.text) == (index == 2 ? [] : ["t\(index)"]))
            }
            #expect(try await store.pendingOutbox(limit: 10).isEmpty)
            #expect(try await delivery.deliverDue() == 0)
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
