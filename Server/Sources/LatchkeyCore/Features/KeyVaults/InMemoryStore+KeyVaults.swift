import Foundation
import Synchronization

extension InMemoryStore: KeyVaultStore {
    public func createVault(_ vault: KeyVaultRecord, limit: Int) async throws -> Bool {
        state.withLock { state in
            guard state.vaults[vault.id] == nil, state.vaults.values.filter({ $0.userID == vault.userID }).count < limit else {
                return false
            }
            state.vaults[vault.id] = vault
            return true
        }
    }

    public func vaults(userID: UUID) async throws -> [KeyVaultRecord] {
        state.withLock { state in state.vaults.values.filter { $0.userID == userID }.sorted { $0.createdAt < $1.createdAt } }
    }

    public func vault(id: UUID, userID: UUID) async throws -> KeyVaultRecord? {
        state.withLock { state in state.vaults[id].flatMap { $0.userID == userID ? $0 : nil } }
    }

    public func recordVaultAttempt(
        id: UUID, userID: UUID, seenFailedAttempts: Int, outcome: VaultAttempt, now: Date
    ) async throws -> Bool {
        state.withLock { state in
            guard var vault = state.vaults[id], vault.userID == userID, vault.sealedShare != nil,
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
            state.vaults[id] = vault
            return true
        }
    }

    public func deleteVault(id: UUID, userID: UUID) async throws -> Bool {
        state.withLock { state in
            guard state.vaults[id]?.userID == userID else { return false }
            state.vaults[id] = nil
            return true
        }
    }
}
