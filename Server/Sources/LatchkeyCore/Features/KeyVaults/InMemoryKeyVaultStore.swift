import Foundation
import Synchronization

/// ``KeyVaultStore`` in memory, with the same atomicity as the SQL stores: every call is one
/// step under a lock, and a conditional write checks its precondition in that step. For unit
/// tests of the use case; the contract suite holds it to the SQL stores' behaviour.
public final class InMemoryKeyVaultStore: KeyVaultStore {
    private let rows = Mutex<[UUID: KeyVaultRecord]>([:])

    public init() {}

    public func createVault(_ vault: KeyVaultRecord, limit: Int) async throws -> Bool {
        rows.withLock { rows in
            guard rows[vault.id] == nil, rows.values.filter({ $0.userID == vault.userID }).count < limit else { return false }
            rows[vault.id] = vault
            return true
        }
    }

    public func vaults(userID: UUID) async throws -> [KeyVaultRecord] {
        rows.withLock { rows in rows.values.filter { $0.userID == userID }.sorted { $0.createdAt < $1.createdAt } }
    }

    public func vault(id: UUID, userID: UUID) async throws -> KeyVaultRecord? {
        rows.withLock { rows in rows[id].flatMap { $0.userID == userID ? $0 : nil } }
    }

    public func recordVaultAttempt(
        id: UUID, userID: UUID, seenFailedAttempts: Int, outcome: VaultAttempt, now: Date
    ) async throws -> Bool {
        rows.withLock { rows in
            guard var vault = rows[id], vault.userID == userID, vault.sealedShare != nil,
                vault.failedAttempts == seenFailedAttempts
            else { return false }
            switch outcome {
            case .unlocked: vault.failedAttempts = 0
            case .wrong: vault.failedAttempts += 1
            case .destroyed:
                vault.failedAttempts += 1
                vault.sealedShare = nil
            }
            vault.updatedAt = now
            rows[id] = vault
            return true
        }
    }

    public func deleteVault(id: UUID, userID: UUID) async throws -> Bool {
        rows.withLock { rows in
            guard rows[id]?.userID == userID else { return false }
            rows[id] = nil
            return true
        }
    }
}
