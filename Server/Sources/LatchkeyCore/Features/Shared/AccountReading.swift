import Foundation

/// What a session answer reads beyond the session: the user with its identities and factors.
public protocol AccountReading: Sendable {
    /// The user, the session `sessionID` (when given and it exists), the user's identities and
    /// factors, read from one snapshot.
    func account(userID: UUID, sessionID: UUID?) async throws -> AccountRecords
}

/// What use cases read of users by id (operators name users by id).
public protocol UserReading: Sendable {
    func user(id: UUID) async throws -> UserRecord?
}

/// Events that go with no other write (a refused code's lock-out, a refused password).
public protocol AuditWriting: Sendable {
    /// Records events that go with no other write.
    func appendAudit(_ events: [AuditEvent]) async throws
}
