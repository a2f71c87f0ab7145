import Foundation
import Synchronization

extension InMemorySignInStore: CodeStore {
    public func createUser(
        _ user: UserRecord, identity: IdentityRecord, token: OneTimeTokenRecord?, outbox: [OutboxRecord], audit events: [AuditEvent],
        limits counters: [RateLimitCounter]
    ) async throws {
        // A taken address stores nothing, its counters neither, as in the SQL stores' transaction.
        try state.withLock { try $0.checkNew(user) }
        let counts = try await limits.incrementRateLimits(counters)
        if let index = counts.indices.first(where: { counts[$0] > counters[$0].limit }) { throw RateLimitExceeded(index: index) }
        try state.withLock { state in
            try state.checkNew(user)
            state.users[user.id] = user
            if let token { state.tokens.append(token) }
            state.outbox += outbox
        }
        try await audit.appendAudit(events)
    }

    public func replaceOneTimeTokens(_ tokens: [OneTimeTokenRecord], user: UserRecord, outbox: [OutboxRecord], audit events: [AuditEvent])
        async throws
    {
        try state.withLock { state in
            try state.write(user)
            // Only the newest code of a kind is good: the older ones go.
            let kinds = Set(tokens.map(\.kind))
            state.tokens.removeAll { $0.userID == user.id && $0.consumedAt == nil && kinds.contains($0.kind) }
            state.tokens += tokens
            state.outbox += outbox
        }
        try await audit.appendAudit(events)
    }

    public func discardOneTimeToken(id: UUID) async throws {
        state.withLock { $0.tokens.removeAll { $0.id == id && $0.consumedAt == nil } }
    }
}

extension InMemorySignInStore: SignUpStore {
    public func enqueueOutbox(_ records: [OutboxRecord]) async throws {
        state.withLock { $0.outbox += records }
    }
}
