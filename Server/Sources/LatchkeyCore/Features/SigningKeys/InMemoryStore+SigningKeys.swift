import Foundation
import Synchronization

extension InMemoryStore: SigningKeyStore {
    public func signingKeys() async throws -> [SigningKeyRecord] {
        state.withLock { state in
            state.signingKeys.sorted { ($0.signsFrom, $0.createdAt) < ($1.signsFrom, $1.createdAt) }
        }
    }

    public func addSigningKey(_ key: SigningKeyRecord, audit events: [AuditEvent]) async throws -> Bool {
        state.withLock { state in
            guard !state.signingKeys.contains(where: { $0.kid == key.kid }) else { return false }
            state.signingKeys.append(key)
            state.events += events
            return true
        }
    }

    public func deleteSigningKeys(kids: [String], audit events: [AuditEvent]) async throws -> Int {
        state.withLock { state in
            let before = state.signingKeys.count
            state.signingKeys.removeAll { kids.contains($0.kid) }
            let deleted = before - state.signingKeys.count
            if deleted > 0 { state.events += events }
            return deleted
        }
    }
}
