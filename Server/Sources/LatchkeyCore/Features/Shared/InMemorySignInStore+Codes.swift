import Foundation
import Synchronization

extension InMemorySignInStore: CodeStore {
    public func createUser(
        _ user: UserRecord, identity: IdentityRecord, token: OneTimeTokenRecord?, outbox: [OutboxRecord], audit events: [AuditEvent],
        limits counters: [RateLimitCounter]
    ) async throws {
        let counts = try await limits.incrementRateLimits(counters)
        if let index = counts.indices.first(where: { counts[$0] > counters[$0].limit }) { throw RateLimitExceeded(index: index) }
        try state.withLock { state in
            guard state.users[user.id] == nil else { throw StoreError.duplicate("user \(user.id)") }
            try state.checkUnique(user)
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
            guard let stored = state.users[user.id] else { throw StoreError.notFound("user \(user.id)") }
            guard stored.version == user.version else {
                throw StoreError.conflict("user \(user.id) changed since it was read at version \(user.version)")
            }
            try state.checkUnique(user)
            // Only the newest code of a kind is good: the older ones go.
            let kinds = Set(tokens.map(\.kind))
            state.tokens.removeAll { $0.userID == user.id && $0.consumedAt == nil && kinds.contains($0.kind) }
            state.tokens += tokens
            var written = user
            written.version += 1
            state.users[user.id] = written
            state.outbox += outbox
        }
        try await audit.appendAudit(events)
    }

    public func discardOneTimeToken(id: UUID) async throws {
        state.withLock { $0.tokens.removeAll { $0.id == id && $0.consumedAt == nil } }
    }
}
