import Foundation

/// What the refresh grant needs from storage: one step that reads the session with its user,
/// decides by the rules (a plain function of what was read) and applies the write they give,
/// counting the request's rate limits. The SQL stores take it in one transaction with the
/// session's row locked; the in-memory store under its lock.
public protocol SessionRefreshStore: Sendable {
    /// Reads the session `rules` is for, decides by `rules` and applies the write it gives,
    /// counting `limits` (``RateLimitExceeded`` for a limit passed: only the counters are
    /// stored): the decision with the account read for its answer, or `nil` when the write's
    /// precondition no longer held (nothing but the counters written; ask again).
    func refresh(_ rules: SessionRefresh.Rules, limits: [RateLimitCounter]) async throws -> (
        SessionRefresh.Decision, AccountRecords
    )?
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
