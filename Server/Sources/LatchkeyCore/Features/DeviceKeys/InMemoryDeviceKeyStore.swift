import Foundation
import Synchronization

/// ``DeviceKeyStore`` in memory, one step under a lock per call, recording its audit events in
/// `audit`; for unit tests, held to the SQL stores' behaviour by the contract suite.
public final class InMemoryDeviceKeyStore: DeviceKeyStore {
    private let keys = Mutex<[DeviceKeyRecord]>([])
    /// Where the events that go with each change are recorded.
    public let audit: InMemoryAuditLogStore

    public init(audit: InMemoryAuditLogStore = InMemoryAuditLogStore()) {
        self.audit = audit
    }

    public func createDeviceKey(_ key: DeviceKeyRecord, limit: Int, audit events: [AuditEvent]) async throws -> Bool {
        let stored = keys.withLock { keys in
            guard !keys.contains(where: { $0.id == key.id }), keys.filter({ $0.userID == key.userID }).count < limit else {
                return false
            }
            keys.append(key)
            return true
        }
        if stored { try await audit.appendAudit(events) }
        return stored
    }

    public func deviceKeys(userID: UUID) async throws -> [DeviceKeyRecord] {
        keys.withLock { keys in keys.filter { $0.userID == userID }.sorted { $0.createdAt < $1.createdAt } }
    }

    public func deleteDeviceKey(id: UUID, userID: UUID, audit events: [AuditEvent]) async throws -> Bool {
        let deleted = keys.withLock { keys in
            guard let index = keys.firstIndex(where: { $0.id == id && $0.userID == userID }) else { return false }
            keys.remove(at: index)
            return true
        }
        if deleted { try await audit.appendAudit(events) }
        return deleted
    }
}
