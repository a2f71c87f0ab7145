import Foundation

/// What sending codes and links needs from storage: users by address, number or pending
/// change; a new user stored with its first code; and a user's codes replaced with the user.
public protocol CodeStore: UserReading {
    func user(email: String) async throws -> UserRecord?
    /// The user with this phone number (E.164 digits, no `+`).
    func user(phone: String) async throws -> UserRecord?
    /// The users whose pending email change goes to `newEmail`, oldest request first.
    func users(newEmail: String) async throws -> [UserRecord]
    /// The users whose pending phone change goes to `newPhone`, oldest request first.
    func users(newPhone: String) async throws -> [UserRecord]
    /// Inserts a user, its identity (and a phone identity too when an email user also has a
    /// phone), its first one-time token and the messages announcing it, all or nothing.
    /// ``StoreError/duplicate(_:)`` when the address or number is taken. Counts `limits` in the
    /// same transaction (``RateLimitExceeded`` for one passed: only its counters are stored).
    func createUser(
        _ user: UserRecord, identity: IdentityRecord, token: OneTimeTokenRecord?, outbox: [OutboxRecord], audit: [AuditEvent],
        limits: [RateLimitCounter]
    ) async throws
    /// Voids the user's outstanding tokens of the kinds given (only the newest code of a kind
    /// is good), stores these, the user (whose `*_sent_at` the caller has set) only at the
    /// version it was read at (``StoreError/conflict(_:)`` otherwise), the messages carrying the
    /// codes and `audit`, all or nothing. ``StoreError/duplicate(_:)`` when the user's new
    /// values collide with another user's.
    func replaceOneTimeTokens(_ tokens: [OneTimeTokenRecord], user: UserRecord, outbox: [OutboxRecord], audit: [AuditEvent])
        async throws
    /// Deletes an outstanding token (a code the SMS provider refused to deliver).
    func discardOneTimeToken(id: UUID) async throws
}

extension CodeStore {
    /// Inserts a user with nothing for the audit log.
    public func createUser(_ user: UserRecord, identity: IdentityRecord, token: OneTimeTokenRecord?, outbox: [OutboxRecord]) async throws {
        try await createUser(user, identity: identity, token: token, outbox: outbox, audit: [], limits: [])
    }

    /// Inserts a user, counting no rate limit.
    public func createUser(
        _ user: UserRecord, identity: IdentityRecord, token: OneTimeTokenRecord?, outbox: [OutboxRecord], audit: [AuditEvent]
    ) async throws {
        try await createUser(user, identity: identity, token: token, outbox: outbox, audit: audit, limits: [])
    }

    /// Replaces tokens with nothing for the audit log.
    public func replaceOneTimeTokens(_ tokens: [OneTimeTokenRecord], user: UserRecord, outbox: [OutboxRecord]) async throws {
        try await replaceOneTimeTokens(tokens, user: user, outbox: outbox, audit: [])
    }
}
