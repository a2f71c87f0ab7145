import Foundation
import Synchronization

extension InMemoryStore: SignerBackupStore {
    public func putSignerBackup(_ backup: SignerBackupRecord) async throws -> Bool {
        state.withLock { state in
            var stored = backup
            if let existing = state.signerBackups[backup.userID] {
                guard existing.publicKey == backup.publicKey else { return false }
                stored.createdAt = existing.createdAt
            }
            state.signerBackups[backup.userID] = stored
            return true
        }
    }

    public func signerBackup(userID: UUID) async throws -> SignerBackupRecord? {
        state.withLock { $0.signerBackups[userID] }
    }

    public func deleteSignerBackup(userID: UUID) async throws -> Bool {
        state.withLock { $0.signerBackups.removeValue(forKey: userID) != nil }
    }

    public func signerRecoveryKey(userID: UUID, creating sealedKey: String, at date: Date) async throws -> String {
        state.withLock { state in
            if let existing = state.signerRecoveryKeys[userID] { return existing }
            state.signerRecoveryKeys[userID] = sealedKey
            return sealedKey
        }
    }
}
