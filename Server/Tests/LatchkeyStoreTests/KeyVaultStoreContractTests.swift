import Foundation
import LatchkeyCore
import LatchkeyStore
import Testing

/// The contract of ``KeyVaultStore``, held against the in-memory store, SQLite and PostgreSQL
/// (when `LATCHKEY_TEST_DATABASE_URL` names a server).
@Suite struct KeyVaultStoreContractTests {
    static func eachStore(_ body: (any KeyVaultStore) async throws -> Void) async throws {
        try await StoreContractTests.eachStore(memory: InMemoryStore() as any KeyVaultStore, body)
    }

    static func owner(_ store: any KeyVaultStore) async throws -> UUID {
        try await StoreContractTests.owner(in: store)
    }

    static func vault(_ userID: UUID, at now: Date) -> KeyVaultRecord {
        KeyVaultRecord(id: UUID(), userID: userID, verifierMAC: "mac", sealedShare: "sealed", createdAt: now, updatedAt: now)
    }

    /// A stored vault of a new user.
    static func oneVault(_ store: any KeyVaultStore) async throws -> (UUID, KeyVaultRecord, Date) {
        let ada = try await owner(store)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let vault = vault(ada, at: now)
        #expect(try await store.createVault(vault, limit: 20))
        return (ada, vault, now)
    }

    @Test func aUsersVaultsAreCappedAndTheirOwn() async throws {
        try await Self.eachStore { store in
            let ada = try await Self.owner(store)
            let bob = try await Self.owner(store)
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            var made: [KeyVaultRecord] = []
            for index in 0..<3 {
                let vault = Self.vault(ada, at: start.addingTimeInterval(Double(index)))
                #expect(try await store.createVault(vault, limit: 3))
                made.append(vault)
            }
            #expect(try await !store.createVault(Self.vault(ada, at: start), limit: 3))
            #expect(try await store.createVault(Self.vault(bob, at: start), limit: 3))
            #expect(try await store.vaults(userID: ada).map(\.id) == made.map(\.id))
            #expect(try await store.vault(id: made[0].id, userID: ada)?.sealedShare == "sealed")
            #expect(try await store.vault(id: made[0].id, userID: bob) == nil)
            #expect(try await !store.deleteVault(id: made[0].id, userID: bob))
            #expect(try await store.deleteVault(id: made[0].id, userID: ada))
            #expect(try await store.vault(id: made[0].id, userID: ada) == nil)
        }
    }

    /// An attempt is written only while the vault is as the caller read it.
    @Test func attemptsAreWrittenOnlyOnTheirPrecondition() async throws {
        try await Self.eachStore { store in
            let (ada, vault, now) = try await Self.oneVault(store)
            func attempt(_ seen: Int, _ outcome: VaultAttempt, user: UUID? = nil) async throws -> Bool {
                try await store.recordVaultAttempt(id: vault.id, userID: user ?? ada, seenFailedAttempts: seen, outcome: outcome, now: now)
            }
            #expect(try await !attempt(1, .wrong))
            #expect(try await !attempt(0, .wrong, user: UUID()))
            #expect(try await attempt(0, .wrong))
            #expect(try await attempt(1, .wrong))
            #expect(try await store.vault(id: vault.id, userID: ada)?.failedAttempts == 2)
            #expect(try await attempt(2, .unlocked))
            #expect(try await store.vault(id: vault.id, userID: ada)?.failedAttempts == 0)
            #expect(try await attempt(0, .destroyed))
            let destroyed = try await store.vault(id: vault.id, userID: ada)
            #expect(destroyed?.sealedShare == nil && destroyed?.failedAttempts == 1)
            // A destroyed vault takes no more attempts.
            #expect(try await !attempt(1, .unlocked))
        }
    }

    /// Attempts that read the same count race; exactly one is written.
    @Test func ofRacingAttemptsOneIsWritten() async throws {
        try await Self.eachStore { store in
            let (ada, vault, now) = try await Self.oneVault(store)
            let written = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        try await store.recordVaultAttempt(id: vault.id, userID: ada, seenFailedAttempts: 0, outcome: .wrong, now: now)
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(written == 1)
            #expect(try await store.vault(id: vault.id, userID: ada)?.failedAttempts == 1)
        }
    }
}
