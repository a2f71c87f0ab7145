import Foundation

/// A recovery code of a user's, stored as its hash; spent once (`usedAt`).
public struct RecoveryCodeRecord: Sendable, Equatable {
    public var id: UUID
    public var userID: UUID
    /// ``OneTimeSecrets/codeHash(_:userID:)`` of the code as typed, normalised.
    public var codeHash: String
    public var createdAt: Date
    public var usedAt: Date?

    public init(id: UUID, userID: UUID, codeHash: String, createdAt: Date, usedAt: Date? = nil) {
        self.id = id
        self.userID = userID
        self.codeHash = codeHash
        self.createdAt = createdAt
        self.usedAt = usedAt
    }
}

/// A right recovery code's write: the code spent, the session raised, both only while as read.
public struct RecoveryCodeSpend: Sendable {
    public var codeID: UUID
    public var userID: UUID
    public var usedAt: Date
    /// The session as read: raised only while its level and refresh counter are still so.
    public var seenSession: SessionRecord
    /// The session raised to `aal2`.
    public var session: SessionRecord
    public var audit: [AuditEvent]
    public var outbox: [OutboxRecord]

    public init(
        codeID: UUID, userID: UUID, usedAt: Date, seenSession: SessionRecord, session: SessionRecord, audit: [AuditEvent],
        outbox: [OutboxRecord]
    ) {
        self.codeID = codeID
        self.userID = userID
        self.usedAt = usedAt
        self.seenSession = seenSession
        self.session = session
        self.audit = audit
        self.outbox = outbox
    }
}

/// What a recovery code's verification reads: the user's codes (spent ones included) and the
/// session it would raise (`nil`: gone or not the user's).
public struct RecoveryCodeState: Sendable, Equatable {
    public var codes: [RecoveryCodeRecord]
    public var session: SessionRecord?

    public init(codes: [RecoveryCodeRecord], session: SessionRecord?) {
        self.codes = codes
        self.session = session
    }
}

/// What recovery codes need from storage: a user's set, replaced whole, and one code spent with
/// the session it raises, on the precondition of what was read.
public protocol RecoveryCodeStore: Sendable {
    /// The user's codes and the session, read together.
    func recoveryCodeState(userID: UUID, sessionID: UUID) async throws -> RecoveryCodeState
    /// Replaces the user's codes with `codes`, recording `audit`, in one write.
    func replaceRecoveryCodes(userID: UUID, with codes: [RecoveryCodeRecord], audit: [AuditEvent]) async throws
    /// Spends the code and raises the session, records the audit and queues the outbox, all or
    /// nothing: `false` (nothing written) when the code was spent or replaced meanwhile, or the
    /// session changed.
    func spendRecoveryCode(_ spend: RecoveryCodeSpend) async throws -> Bool
}
