import Foundation
import Synchronization

extension InMemorySignInStore: UserAccountStore {
    /// Adds a second factor, as enrolment would.
    public func add(_ factor: FactorRecord) { state.withLock { $0.factors.append(factor) } }

    public func factors(userID: UUID) async throws -> [FactorRecord] {
        state.withLock { $0.factors.filter { $0.userID == userID } }
    }

    public func updateUser(_ user: UserRecord) async throws {
        try state.withLock { try $0.write(user) }
    }

    public func updateUser(_ user: UserRecord, revokingSessionsExcept keeping: UUID?, outbox: [OutboxRecord], audit events: [AuditEvent])
        async throws
    {
        try state.withLock { state in
            try state.write(user)
            state.sessions = state.sessions.filter { $0.value.userID != user.id || $0.key == keeping }
            state.outbox += outbox
        }
        try await audit.appendAudit(events)
    }

    public func adminUpdateUser(_ user: UserRecord, endSessions: Bool, audit events: [AuditEvent]) async throws {
        try state.withLock { state in
            try state.write(user)
            if endSessions { state.sessions = state.sessions.filter { $0.value.userID != user.id } }
        }
        try await audit.appendAudit(events)
    }

    public func deleteSession(id: UUID, audit events: [AuditEvent]) async throws {
        state.withLock { _ = $0.sessions.removeValue(forKey: id) }
        try await audit.appendAudit(events)
    }

    public func deleteSessions(userID: UUID, except keeping: UUID?, audit events: [AuditEvent]) async throws {
        state.withLock { state in state.sessions = state.sessions.filter { $0.value.userID != userID || $0.key == keeping } }
        try await audit.appendAudit(events)
    }
}
