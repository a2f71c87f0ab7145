import Foundation
import Synchronization

extension InMemoryStore: UserAccountStore {
    public func factors(userID: UUID) async throws -> [FactorRecord] {
        state.withLock { $0.factors(userID: userID) }
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
            state.events += events
        }
    }

    public func adminUpdateUser(_ user: UserRecord, endSessions: Bool, audit events: [AuditEvent]) async throws {
        try state.withLock { state in
            try state.write(user)
            if endSessions { state.sessions = state.sessions.filter { $0.value.userID != user.id } }
            state.events += events
        }
    }

    public func deleteSession(id: UUID, audit events: [AuditEvent]) async throws {
        state.withLock { state in
            state.sessions[id] = nil
            state.events += events
        }
    }

    public func deleteSessions(userID: UUID, except keeping: UUID?, audit events: [AuditEvent]) async throws {
        state.withLock { state in
            state.sessions = state.sessions.filter { $0.value.userID != userID || $0.key == keeping }
            state.events += events
        }
    }

    public func deleteAccount(userID: UUID, version: Int64, sessionID: UUID, audit events: [AuditEvent]) async throws -> Bool {
        state.withLock { state in
            guard state.users[userID]?.version == version, state.sessions[sessionID]?.userID == userID, state.deleteUser(userID)
            else { return false }
            state.events += events
            return true
        }
    }
}
