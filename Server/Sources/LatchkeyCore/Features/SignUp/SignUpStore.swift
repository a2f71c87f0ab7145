import Foundation

/// What sign-up needs from storage beyond ``CodeStore`` (through which ``Codes`` stores new
/// users and their codes): the account by address or number, a session written with the new
/// user, and a message queued on its own.
public protocol SignUpStore: UserReading {
    func user(email: String) async throws -> UserRecord?
    /// The user with this phone number (E.164 digits, no `+`).
    func user(phone: String) async throws -> UserRecord?
    /// Stores a new session, the signed-in user and `audit`, all or nothing, the user only at the
    /// version it was read at (``StoreError/conflict(_:)`` otherwise).
    func createSession(_ session: SessionRecord, user: UserRecord, audit: [AuditEvent]) async throws
    /// Queues messages that go with no other write.
    func enqueueOutbox(_ records: [OutboxRecord]) async throws
}

extension SignUpStore {
    /// Stores a session with nothing for the audit log.
    public func createSession(_ session: SessionRecord, user: UserRecord) async throws {
        try await createSession(session, user: user, audit: [])
    }
}
