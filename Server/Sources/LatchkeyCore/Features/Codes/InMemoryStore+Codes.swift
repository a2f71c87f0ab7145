import Foundation
import Synchronization

extension InMemoryStore: CodeStore {
    public func users(newEmail: String) async throws -> [UserRecord] {
        state.withLock { state in
            state.users.values.filter { $0.newEmail == newEmail }.sorted {
                ($0.emailChangeSentAt ?? .distantPast) < ($1.emailChangeSentAt ?? .distantPast)
            }
        }
    }

    public func users(newPhone: String) async throws -> [UserRecord] {
        state.withLock { state in
            state.users.values.filter { $0.newPhone == newPhone }.sorted {
                ($0.phoneChangeSentAt ?? .distantPast) < ($1.phoneChangeSentAt ?? .distantPast)
            }
        }
    }

    public func createUser(
        _ user: UserRecord, identity: IdentityRecord, token: OneTimeTokenRecord?, outbox: [OutboxRecord], audit events: [AuditEvent],
        limits counters: [RateLimitCounter]
    ) async throws {
        try state.withLock { state in
            // A taken address stores nothing, its counters neither: the SQL stores' insert fails
            // before the transaction counts them.
            try state.checkNew(user)
            try state.take(counters)
            try state.insert(user, identity: identity)
            if let token { state.tokens.append(token) }
            state.outbox += outbox
            state.events += events
        }
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
            state.events += events
        }
    }

    public func discardOneTimeToken(id: UUID) async throws {
        state.withLock { $0.tokens.removeAll { $0.id == id && $0.consumedAt == nil } }
    }
}
