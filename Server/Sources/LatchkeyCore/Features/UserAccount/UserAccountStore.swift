import Foundation

/// What the signed-in user's own account needs from storage: the user and its factors, the
/// addresses and numbers other users hold, a nonce spent, the user written only at the version
/// it was read at (``StoreError/conflict(_:)`` otherwise), and sessions ended.
public protocol UserAccountStore: UserReading, FactorReading {
    func user(email: String) async throws -> UserRecord?
    /// The user with this phone number (E.164 digits, no `+`).
    func user(phone: String) async throws -> UserRecord?
    /// Redeems a one-time token by `rules` (``VerificationStore/redeem(_:limits:)``).
    func redeem(_ rules: CodeRedemption, limits: [RateLimitCounter]) async throws -> RedemptionOutcome
    /// Stores the user's changed fields.
    func updateUser(_ user: UserRecord) async throws
    /// Stores the user, ends all of its sessions except `keeping` and all of its device keys
    /// (its credentials changed), and queues `outbox` and records `audit`, all or nothing.
    func updateUser(_ user: UserRecord, revokingSessionsExcept keeping: UUID?, outbox: [OutboxRecord], audit: [AuditEvent]) async throws
    /// Stores the user with its `email`/`phone` identities following its address and number
    /// (an anonymous user made permanent), ending every session when `endSessions`, and `audit`.
    /// ``StoreError/duplicate(_:)`` when another user took the address or number.
    func adminUpdateUser(_ user: UserRecord, endSessions: Bool, audit: [AuditEvent]) async throws
    /// Ends a session and records `audit`.
    func deleteSession(id: UUID, audit: [AuditEvent]) async throws
    /// Ends every session of the user except `keeping`, and every device key but the one of
    /// `keeping`'s device, and records `audit`.
    func deleteSessions(userID: UUID, except keeping: UUID?, audit: [AuditEvent]) async throws
    /// Deletes the user and everything that belongs to it and records `audit`, only while the
    /// user is at `version` and `sessionID` is one of its sessions; `false` (nothing written)
    /// otherwise.
    func deleteAccount(userID: UUID, version: Int64, sessionID: UUID, audit: [AuditEvent]) async throws -> Bool
}

extension UserAccountStore {
    /// Deletes sessions with nothing for the audit log.
    public func deleteSessions(userID: UUID, except keeping: UUID?) async throws {
        try await deleteSessions(userID: userID, except: keeping, audit: [])
    }

    /// Deletes a session with nothing for the audit log.
    public func deleteSession(id: UUID) async throws { try await deleteSession(id: id, audit: []) }
}
