import Foundation

/// What second factors need from storage: the factor rows of a user, their challenges, and one
/// conditional write per verification. The use case reads the factor, its challenge and the
/// session, decides, and hands the store the outcome; the store applies it only while what was
/// read is still so (a racing verification or refresh makes it read and decide again).
public protocol FactorStore: FactorReading, UserReading, AuditWriting, RecoveryCodeStore {
    /// Stores a factor unless the user has `limit` factors already (`false` then), recording
    /// `audit`. First, in the same write, the user's unverified factors enrolled before
    /// `expiringBefore` that have no challenge go (GoTrue's `GOTRUE_MFA_FACTOR_EXPIRY_DURATION`),
    /// and a phone factor replaces the user's unverified factors for its number (and their
    /// challenges). Throws ``StoreError/duplicate(_:)`` when the user has a factor of that name.
    func createFactor(_ factor: FactorRecord, limit: Int, expiringBefore: Date?, audit: [AuditEvent]) async throws -> Bool
    /// Stores a challenge and notes when its factor was challenged. A challenge with a code (a
    /// phone factor's) replaces the factor's other challenges: only the newest code counts.
    func createChallenge(_ challenge: FactorChallengeRecord) async throws
    /// ``createChallenge(_:)`` only while the factor was last challenged at `seen` (a cooldown
    /// was decided on it): `false`, and nothing written, when another challenge came first.
    func createChallenge(_ challenge: FactorChallengeRecord, ifLastChallengedAt seen: Date?) async throws -> Bool
    /// The user's factor, the factor's challenge and the user's session, read together.
    func factorVerification(factorID: UUID, userID: UUID, challengeID: UUID, sessionID: UUID) async throws
        -> FactorVerificationState
    /// Applies a verification's outcome, all or nothing, if the factor still has the status,
    /// last used step, failed attempts, lock and WebAuthn key of `write.seen` and, for a right code, the
    /// challenge is still open and the session still has the level and refresh counter of
    /// `acceptance.seenSession`. `false` when one of these changed, and nothing is written.
    /// Throws ``StoreError/duplicate(_:)`` when it would verify a second phone factor for a
    /// number the user has a verified factor for, or register a WebAuthn key another factor has.
    func recordFactorVerification(_ write: FactorWrite) async throws -> Bool
    /// Deletes a challenge of the factor (it expired): a challenge is good for one try at most.
    func spendChallenge(id: UUID, factorID: UUID) async throws
    /// Deletes the user's factor and its challenges, records `audit` and queues `outbox`; when
    /// `downgradingSessions`, brings the user's `aal2` sessions back to `aal1` (and drops `totp`
    /// from their `amr`). The factor, or `nil` when the user has no such factor (nothing changes).
    func deleteFactor(
        id: UUID, userID: UUID, downgradingSessions: Bool, audit: [AuditEvent], outbox: [OutboxRecord]
    ) async throws -> FactorRecord?
    /// An operator's reset: deletes every factor of the user (and their challenges), the user's
    /// recovery codes, and every session and device key of the user, records `audit(deleted)` and queues `outbox(deleted)`,
    /// all in one write. The factors deleted (none: nothing is written).
    func resetFactors(
        userID: UUID, audit: @escaping @Sendable ([FactorRecord]) -> [AuditEvent],
        outbox: @escaping @Sendable ([FactorRecord]) throws -> [OutboxRecord]
    ) async throws -> [FactorRecord]
}

extension FactorStore {
    /// ``createFactor(_:limit:expiringBefore:audit:)`` with no expiry.
    public func createFactor(_ factor: FactorRecord, limit: Int, audit: [AuditEvent]) async throws -> Bool {
        try await createFactor(factor, limit: limit, expiringBefore: nil, audit: audit)
    }
}

/// What a verification reads: each `nil` when it does not exist (or is not the user's).
public struct FactorVerificationState: Sendable, Equatable {
    public var factor: FactorRecord?
    public var challenge: FactorChallengeRecord?
    public var session: SessionRecord?

    public init(factor: FactorRecord?, challenge: FactorChallengeRecord?, session: SessionRecord?) {
        self.factor = factor
        self.challenge = challenge
        self.session = session
    }
}

/// A verification's outcome, with the precondition it is written on.
public struct FactorWrite: Sendable {
    /// The factor as read: the write applies only while the stored one is still so.
    public var seen: FactorRecord
    /// The factor to store (its failure count, a lock, or the step just used).
    public var factor: FactorRecord
    public var audit: [AuditEvent]
    /// For a right code: the challenge to spend and the session to raise.
    public var acceptance: FactorAcceptance?

    public init(seen: FactorRecord, factor: FactorRecord, audit: [AuditEvent], acceptance: FactorAcceptance? = nil) {
        self.seen = seen
        self.factor = factor
        self.audit = audit
        self.acceptance = acceptance
    }
}

/// What a right code changes beyond its factor.
public struct FactorAcceptance: Sendable {
    /// The challenge it answered, spent with it.
    public var challengeID: UUID
    /// The session as read: it is raised only while its level and refresh counter are still so.
    public var seenSession: SessionRecord
    /// The session raised to `aal2`.
    public var session: SessionRecord
    /// Messages to queue with it.
    public var outbox: [OutboxRecord]
    /// Whether the user's other sessions below `aal2` end, with every device key but this
    /// session's device's (the first verification of a factor).
    public var endingOtherAAL1Sessions: Bool
    /// A set of recovery codes to store in place of the user's (the first factor's verification);
    /// empty: the user's codes stay as they are.
    public var recoveryCodes: [RecoveryCodeRecord]

    public init(
        challengeID: UUID, seenSession: SessionRecord, session: SessionRecord, outbox: [OutboxRecord], endingOtherAAL1Sessions: Bool,
        recoveryCodes: [RecoveryCodeRecord] = []
    ) {
        self.challengeID = challengeID
        self.seenSession = seenSession
        self.session = session
        self.outbox = outbox
        self.endingOtherAAL1Sessions = endingOtherAAL1Sessions
        self.recoveryCodes = recoveryCodes
    }
}

extension FactorRecord {
    /// Whether `other` is this factor as a verification decides on it: the same status, last
    /// used step (a WebAuthn key's counter), failed attempts, lock and WebAuthn key (the
    /// precondition of ``FactorStore/recordFactorVerification(_:)``).
    public func decidesLike(_ other: FactorRecord) -> Bool {
        id == other.id && status == other.status && lastUsedStep == other.lastUsedStep && failedAttempts == other.failedAttempts
            && lockedUntil == other.lockedUntil && webAuthn?.credentialID == other.webAuthn?.credentialID
    }
}
