import Foundation

/// What the embedded-signer extension needs from storage: one backup per user, and one sealed
/// automatic-recovery key per user.
public protocol SignerBackupStore: Sendable {
    /// Stores the user's backup, replacing one for the same public key; `false` (and nothing
    /// stored) when the user already has a backup of another key. A replaced backup keeps its
    /// `createdAt`.
    func putSignerBackup(_ backup: SignerBackupRecord) async throws -> Bool
    /// The user's backup, if any.
    func signerBackup(userID: UUID) async throws -> SignerBackupRecord?
    /// Deletes the user's backup; `false` when there is none.
    func deleteSignerBackup(userID: UUID) async throws -> Bool
    /// The user's sealed automatic-recovery key, storing `sealedKey` first when there is none
    /// (two instances racing agree on one key).
    func signerRecoveryKey(userID: UUID, creating sealedKey: String, at date: Date) async throws -> String
}
