import Foundation

/// What the password grant needs from storage: the account by address or number, and the
/// session written with the signed-in user in one step.
public protocol PasswordSignInStore: UserReading, AuditWriting {
    func user(email: String) async throws -> UserRecord?
    /// The user with this phone number (E.164 digits, no `+`).
    func user(phone: String) async throws -> UserRecord?
    /// Stores a new session, the signed-in user (last sign-in, upgraded hash) and `audit`, all or
    /// nothing. The user is written only at the version it was read at
    /// (``StoreError/conflict(_:)`` otherwise; ``StoreError/notFound(_:)`` when it is gone).
    func createSession(_ session: SessionRecord, user: UserRecord, audit: [AuditEvent]) async throws
}
