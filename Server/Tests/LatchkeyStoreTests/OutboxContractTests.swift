import Foundation
import LatchkeyCore
import LatchkeyStore
import Testing

/// The contract of ``OutboxStore`` (issue #38: ``OutboxDelivery`` holds it, not `AuthStore`): due
/// times, leases, outcomes, on the in-memory store, SQLite and PostgreSQL; cleanup on the SQL ones.
@Suite struct OutboxContractTests {
    typealias Store = any OutboxStore

    @Test func claimsOnlyDueMessagesAndHonoursLeases() async throws {
        try await StoreContractTests.eachStore(memory: InMemoryStore() as Store) { store async throws in
            let now = Date()
            let due = StoreContractTests.mail(to: "due@example.com", due: now.addingTimeInterval(-1))
            let later = StoreContractTests.mail(to: "later@example.com", due: now.addingTimeInterval(60))
            try await store.enqueueOutbox([due, later])
            if let sql = store as? SQLAuthStore {
                let backlog = try await sql.outboxBacklog()
                #expect(backlog.count == 2)
                #expect(abs((backlog.oldest ?? .distantFuture).timeIntervalSince(min(due.createdAt, later.createdAt))) < 0.002)
            }
            let next = try #require(try await store.nextOutboxAttempt())
            #expect(abs(next.timeIntervalSince(due.nextAttemptAt)) < 0.002)

            let first = try await store.claimOutbox(now: now, leaseUntil: now.addingTimeInterval(30), limit: 10)
            #expect(first.map(\.id) == [due.id])
            #expect(first.first?.payload == "sealed")
            // Leased: nobody else gets it until the lease ends.
            #expect(try await store.claimOutbox(now: now, leaseUntil: now.addingTimeInterval(30), limit: 10).isEmpty)
            let afterLease = now.addingTimeInterval(31)
            #expect(
                try await store.claimOutbox(now: afterLease, leaseUntil: afterLease.addingTimeInterval(30), limit: 10).map(\.id) == [due.id]
            )
        }
    }

    @Test func concurrentClaimersNeverShareAMessage() async throws {
        try await StoreContractTests.eachStore(memory: InMemoryStore() as Store) { store async throws in
            let now = Date()
            let messages = (0..<40).map { StoreContractTests.mail(to: "m\($0)@example.com", due: now) }
            try await store.enqueueOutbox(messages)
            let claimed = try await withThrowingTaskGroup(of: [UUID].self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        var mine: [UUID] = []
                        while true {
                            let batch = try await store.claimOutbox(now: now, leaseUntil: now.addingTimeInterval(60), limit: 3)
                            if batch.isEmpty { return mine }
                            mine += batch.map(\.id)
                        }
                    }
                }
                var all: [UUID] = []
                for try await ids in group { all += ids }
                return all
            }
            #expect(claimed.count == 40)
            #expect(Set(claimed) == Set(messages.map(\.id)))
        }
    }

    @Test func outcomesAreRecorded() async throws {
        try await StoreContractTests.eachStore(memory: InMemoryStore() as Store) { store async throws in
            let now = Date()
            let sent = StoreContractTests.mail(to: "sent@example.com", due: now)
            let retried = StoreContractTests.mail(to: "retry@example.com", due: now)
            let failed = StoreContractTests.mail(to: "failed@example.com", due: now)
            try await store.enqueueOutbox([sent, retried, failed])
            _ = try await store.claimOutbox(now: now, leaseUntil: now.addingTimeInterval(60), limit: 10)
            try await store.finishOutbox(id: sent.id, outcome: .sent(at: now))
            try await store.finishOutbox(id: retried.id, outcome: .retry(attempts: 1, next: now.addingTimeInterval(5), error: "421 busy"))
            try await store.finishOutbox(id: failed.id, outcome: .failed(attempts: 1, at: now, error: "550 no such user"))

            let pending = try await store.pendingOutbox(limit: 10)
            #expect(pending.map(\.id) == [retried.id])
            #expect(pending.first?.attempts == 1)
            #expect(pending.first?.lastError == "421 busy")
            // The retry is due in 5 s, and its lease ended with the attempt.
            #expect(try await store.claimOutbox(now: now.addingTimeInterval(1), leaseUntil: now.addingTimeInterval(60), limit: 10).isEmpty)
            #expect(
                try await store.claimOutbox(now: now.addingTimeInterval(6), leaseUntil: now.addingTimeInterval(60), limit: 10).map(\.id)
                    == [retried.id])

            // Finished rows are kept a week, then cleaned up (by the SQL stores' maintenance).
            if let sql = store as? any AuthStore {
                #expect(try await sql.deleteExpired(now: now.addingTimeInterval(86400)) == 0)
                #expect(try await sql.deleteExpired(now: now.addingTimeInterval(8 * 86400)) == 2)
            }
        }
    }
}
