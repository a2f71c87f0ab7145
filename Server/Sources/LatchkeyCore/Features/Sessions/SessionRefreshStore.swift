import Foundation

/// What the refresh grant needs from storage: the session with its account, read from one
/// snapshot, and one write applied on the precondition of that read.
public protocol SessionRefreshStore: Sendable {
    /// The session `sessionID` with its user and the user's identities and factors, read from
    /// one snapshot; everything empty when the session does not exist.
    func refreshState(sessionID: UUID) async throws -> AccountRecords
    /// Applies `write` in one transaction that also counts `limits` (``RateLimitExceeded`` for a
    /// limit passed: only the counters are stored). `false` when the write's precondition no
    /// longer held: then nothing but the counters was written, and the caller reads again.
    func applyRefresh(_ write: RefreshWrite, limits: [RateLimitCounter]) async throws -> Bool
}

/// What a refresh writes, each on the precondition of what was read.
public enum RefreshWrite: Sendable, Equatable {
    /// Stores `session` (its counter moved on by one) while the stored one still has the
    /// counter before it.
    case rotate(SessionRecord)
    /// Writes nothing, but holds only while the session still exists at its counter (a ban or
    /// a sign-out meanwhile ends it).
    case reuse(SessionRecord)
    /// Deletes the session, whatever became of it, and records `audit`.
    case revoke(sessionID: UUID, audit: [AuditEvent])
}
