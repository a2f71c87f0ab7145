import Foundation
import LatchkeyCore
import LatchkeyStore
import Testing

/// The contract of ``SignerBackupStore``, held against the in-memory store, SQLite and
/// PostgreSQL (when `LATCHKEY_TEST_DATABASE_URL` names a server).
@Suite struct SignerBackupStoreContractTests {
    static func eachStore(_ body: (any SignerBackupStore) async throws -> Void) async throws {
        try await StoreContractTests.eachStore(memory: InMemoryStore() as any SignerBackupStore, body)
    }

    static func owner(_ store: any SignerBackupStore) async throws -> UUID {
        try await StoreContractTests.owner(in: store)
    }

    static func backup(_ userID: UUID, key: String, at date: Date) -> SignerBackupRecord {
        SignerBackupRecord(
            userID: userID, publicKey: key, recovery: "automatic", ciphertext: "c-\(key)", kdf: nil, createdAt: date, updatedAt: date)
    }

    @Test func aBackupOfAnotherKeyIsNeverOverwritten() async throws {
        try await Self.eachStore { store in
            let ada = try await Self.owner(store)
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            #expect(try await store.putSignerBackup(Self.backup(ada, key: "k1", at: start)))
            #expect(try await store.putSignerBackup(Self.backup(ada, key: "k1", at: start.addingTimeInterval(60))))
            let replaced = try await store.signerBackup(userID: ada)
            #expect(replaced?.createdAt == start && replaced?.updatedAt == start.addingTimeInterval(60))
            #expect(try await !store.putSignerBackup(Self.backup(ada, key: "k2", at: start)))
            #expect(try await store.signerBackup(userID: ada)?.publicKey == "k1")
            #expect(try await store.deleteSignerBackup(userID: ada))
            #expect(try await !store.deleteSignerBackup(userID: ada))
            #expect(try await store.signerBackup(userID: ada) == nil)
            #expect(try await store.putSignerBackup(Self.backup(ada, key: "k2", at: start)))
        }
    }

    /// Racing first uses agree on one recovery key.
    @Test func theFirstRecoveryKeyStoredWins() async throws {
        try await Self.eachStore { store in
            let ada = try await Self.owner(store)
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            let keys = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<6 {
                    group.addTask { try await store.signerRecoveryKey(userID: ada, creating: "sealed-\(index)", at: now) }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(keys.count == 1)
            #expect(try await store.signerRecoveryKey(userID: ada, creating: "later", at: now) == keys.first)
        }
    }
}
