import Foundation
import Synchronization

/// ``SigningKeyStore`` in memory, one step under a lock per call, for unit tests; the contract
/// suite holds it to the SQL stores' order and answers.
public final class InMemorySigningKeyStore: SigningKeyStore {
    private struct State {
        var keys: [SigningKeyRecord] = []
        var events: [AuditEvent] = []
    }

    private let state = Mutex(State())

    public init() {}

    /// The events recorded, oldest first.
    public var events: [AuditEvent] { state.withLock { $0.events } }

    public func signingKeys() async throws -> [SigningKeyRecord] {
        state.withLock { state in
            state.keys.sorted { ($0.signsFrom, $0.createdAt) < ($1.signsFrom, $1.createdAt) }
        }
    }

    public func addSigningKey(_ key: SigningKeyRecord, audit: [AuditEvent]) async throws -> Bool {
        state.withLock { state in
            guard !state.keys.contains(where: { $0.kid == key.kid }) else { return false }
            state.keys.append(key)
            state.events += audit
            return true
        }
    }

    public func deleteSigningKeys(kids: [String], audit: [AuditEvent]) async throws -> Int {
        state.withLock { state in
            let before = state.keys.count
            state.keys.removeAll { kids.contains($0.kid) }
            let deleted = before - state.keys.count
            if deleted > 0 { state.events += audit }
            return deleted
        }
    }

    public func appendAudit(_ events: [AuditEvent]) async throws {
        state.withLock { $0.events += events }
    }
}
