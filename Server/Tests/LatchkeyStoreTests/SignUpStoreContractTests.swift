import Foundation
import LatchkeyAPI
import LatchkeyCore
import LatchkeyStore
import Testing

/// The contract of ``SignUpStore`` beyond what ``PasswordSignInStoreContractTests`` holds
/// (`createSession` at the version read), against the in-memory store, SQLite and PostgreSQL:
/// a message queued on its own is pending, once, as given.
@Suite struct SignUpStoreContractTests {
    static func eachStore(_ body: (any SignUpStore) async throws -> Void) async throws {
        try await StoreContractTests.eachStore(memory: InMemoryStore() as any SignUpStore, body)
    }

    /// The messages pending in `store`, oldest first.
    static func pending(in store: any SignUpStore) async throws -> [OutboxRecord] {
        if let memory = store as? InMemoryStore { return memory.outbox }
        return try await (store as! any AuthStore).pendingOutbox(limit: 100)
    }

    @Test func aQueuedMessageIsPendingOnce() async throws {
        try await Self.eachStore { store in
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            let mail = StoreContractTests.mail(to: "owner-\(UUID().uuidString.prefix(8))@example.com", due: now)
            try await store.enqueueOutbox([mail])
            let pending = try await Self.pending(in: store).filter { $0.recipient == mail.recipient }
            #expect(pending.count == 1)
            #expect(pending.first?.id == mail.id && pending.first?.payload == mail.payload && pending.first?.nextAttemptAt == now)
        }
    }
}
