import Foundation
import Synchronization

/// ``SignerBackupStore`` in memory, one step under a lock per call, for unit tests; the contract
/// suite holds it to the SQL stores' behaviour.
public final class InMemorySignerBackupStore: SignerBackupStore {
    private struct State {
        var backups: [UUID: SignerBackupRecord] = [:]
        var recoveryKeys: [UUID: String] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    public func putSignerBackup(_ backup: SignerBackupRecord) async throws -> Bool {
        state.withLock { state in
            var stored = backup
            if let existing = state.backups[backup.userID] {
                guard existing.publicKey == backup.publicKey else { return false }
                stored.createdAt = existing.createdAt
            }
            state.backups[backup.userID] = stored
            return true
        }
    }

    public func signerBackup(userID: UUID) async throws -> SignerBackupRecord? {
        state.withLock { $0.backups[userID] }
    }

    public func deleteSignerBackup(userID: UUID) async throws -> Bool {
        state.withLock { $0.backups.removeValue(forKey: userID) != nil }
    }

    public func signerRecoveryKey(userID: UUID, creating sealedKey: String, at date: Date) async throws -> String {
        state.withLock { state in
            if let existing = state.recoveryKeys[userID] { return existing }
            state.recoveryKeys[userID] = sealedKey
            return sealedKey
        }
    }
}
