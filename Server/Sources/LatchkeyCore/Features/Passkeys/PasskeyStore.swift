import Foundation

/// What passkeys need from storage.
public protocol PasskeyStore: UserReading, AuditWriting, FactorReading {
    func createWebAuthnChallenge(_ challenge: WebAuthnChallengeRecord) async throws
    /// Deletes and returns the challenge `id` of `ceremony` for `userID` (`nil`: a sign-in's,
    /// which has no user); `nil` when there is none, it was spent, or it is another's. A challenge
    /// is returned once, expired or not: the caller checks the time.
    func spendWebAuthnChallenge(id: UUID, ceremony: WebAuthnChallengeRecord.Ceremony, userID: UUID?) async throws
        -> WebAuthnChallengeRecord?
    /// The user's passkeys, oldest first.
    func passkeys(userID: UUID) async throws -> [PasskeyRecord]
    func passkey(credentialID: [UInt8]) async throws -> PasskeyRecord?
    /// Stores a new passkey unless the user has `limit` already (`false`);
    /// ``StoreError/duplicate(_:)`` when the credential id is registered (to anyone).
    func createPasskey(_ passkey: PasskeyRecord, limit: Int, audit: [AuditEvent]) async throws -> Bool
    /// Renames the user's passkey; `nil` when it is not theirs.
    func renamePasskey(id: UUID, userID: UUID, name: String, at date: Date, audit: [AuditEvent]) async throws -> PasskeyRecord?
    /// `false` when the passkey is not the user's.
    func deletePasskey(id: UUID, userID: UUID, audit: [AuditEvent]) async throws -> Bool
    /// A sign-in with the passkey, in one transaction: its counter moves from `seenCount` to
    /// `newCount` (`false`, nothing written, when another sign-in moved it first or the passkey is
    /// gone), `user` is written at the version it was read at (``StoreError/conflict(_:)``
    /// otherwise), the session and events are stored.
    func recordPasskeySignIn(
        passkeyID: UUID, seenCount: UInt32, newCount: UInt32, backedUp: Bool, at date: Date, session: SessionRecord, user: UserRecord,
        audit: [AuditEvent]
    ) async throws -> Bool
}
