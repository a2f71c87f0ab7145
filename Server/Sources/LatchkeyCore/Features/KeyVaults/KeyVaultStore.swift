import Foundation

/// What PIN vaults need from storage: the vault rows of one user, and one conditional write per
/// unlock attempt. The use case reads, decides and hands the store the outcome; the store applies
/// it only if the vault is still as read.
public protocol KeyVaultStore: Sendable {
    /// Stores the vault unless the user has `limit` vaults already (`false` then), counted in the
    /// same transaction.
    func createVault(_ vault: KeyVaultRecord, limit: Int) async throws -> Bool
    /// The user's vaults, oldest first.
    func vaults(userID: UUID) async throws -> [KeyVaultRecord]
    /// The user's vault with this id, if any.
    func vault(id: UUID, userID: UUID) async throws -> KeyVaultRecord?
    /// Records an unlock attempt's outcome if the vault still has its share and
    /// `seenFailedAttempts` wrong attempts (the precondition); `false` when another attempt
    /// changed it in between, and nothing is written.
    func recordVaultAttempt(
        id: UUID, userID: UUID, seenFailedAttempts: Int, outcome: VaultAttempt, now: Date
    ) async throws -> Bool
    /// Deletes the user's vault; `false` when the user has no such vault.
    func deleteVault(id: UUID, userID: UUID) async throws -> Bool
}

/// What an unlock attempt does to its vault.
public enum VaultAttempt: Sendable, Equatable {
    /// The right PIN: the count of wrong ones goes back to zero.
    case unlocked
    /// A wrong PIN: counted.
    case wrong
    /// The last wrong PIN allowed: counted, and the share destroyed for good.
    case destroyed
}
