import Foundation

/// What the refresh grant needs from storage: the session with its account, read from one
/// snapshot, and one write applied on the precondition of that read; or both in one transaction
/// (``refresh(_:limits:)``, what the SQL stores do on this hottest path).
public protocol SessionRefreshStore: Sendable {
    /// The session `sessionID` with its user and the user's identities and factors, read from
    /// one snapshot; everything empty when the session does not exist.
    func refreshState(sessionID: UUID) async throws -> AccountRecords
    /// Applies `write` in one transaction that also counts `limits` (``RateLimitExceeded`` for a
    /// limit passed: only the counters are stored). `false` when the write's precondition no
    /// longer held: then nothing but the counters was written, and the caller reads again.
    func applyRefresh(_ write: RefreshWrite, limits: [RateLimitCounter]) async throws -> Bool
    /// Reads the session `rules` is for, decides by `rules` (a plain function of what was read)
    /// and applies the write it gives, counting `limits`: the decision with the account read for
    /// its answer, or `nil` when another write came between the read and the write (nothing but
    /// the counters written; read again). A SQL store does this in one transaction with the
    /// session's row locked; the default runs ``refreshState(sessionID:)`` and
    /// ``applyRefresh(_:limits:)``.
    func refresh(_ rules: SessionRefresh.Rules, limits: [RateLimitCounter]) async throws -> (
        SessionRefresh.Decision, AccountRecords
    )?
}

extension SessionRefreshStore {
    public func refresh(_ rules: SessionRefresh.Rules, limits: [RateLimitCounter]) async throws -> (
        SessionRefresh.Decision, AccountRecords
    )? {
        let account = try await refreshState(sessionID: rules.sessionID)
        let decision = rules.decide(session: account.session, user: account.user)
        // A refusal writes nothing but the counters.
        guard try await applyRefresh(rules.write(for: decision, user: account.user) ?? .countersOnly, limits: limits) else { return nil }
        return (decision, account)
    }
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
    /// Writes nothing but the counters.
    case countersOnly
}
