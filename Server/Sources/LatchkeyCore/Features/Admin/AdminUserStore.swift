import Foundation

/// What the operator's user endpoints need from storage: users by id, address, number or page;
/// a change applied at the version read; a user deleted whole; many users inserted at once.
public protocol AdminUserStore: UserReading {
    func user(email: String) async throws -> UserRecord?
    /// The user with this phone number (E.164 digits, no `+`).
    func user(phone: String) async throws -> UserRecord?
    /// A page of users, newest first, whose address contains `emailContains` and, when
    /// `anonymous` is set, who are (or are not) anonymous; and how many match in all.
    func listUsers(emailContains: String?, anonymous: Bool?, offset: Int, limit: Int) async throws -> (users: [UserRecord], total: Int)
    /// Stores the user (only at the version it was read at: ``StoreError/conflict(_:)``
    /// otherwise) with its `email`/`phone` identities following its address and number, ending
    /// every session and device key when `endSessions`, and `audit`, all or nothing.
    /// ``StoreError/duplicate(_:)`` when another user has the address or number.
    func adminUpdateUser(_ user: UserRecord, endSessions: Bool, audit: [AuditEvent]) async throws
    /// Deletes a user and everything that belongs to it, recording `audit`; `false` when there
    /// is no such user.
    func deleteUser(id: UUID, audit: [AuditEvent]) async throws -> Bool
    /// Inserts many users with their identities in one transaction, all or nothing;
    /// ``StoreError/duplicate(_:)`` when an address is taken.
    func insertUsers(_ users: [(user: UserRecord, identity: IdentityRecord)]) async throws
    /// The user's sessions (the console shows them).
    func sessions(userID: UUID) async throws -> [SessionRecord]
}

extension AdminUserStore {
    /// Deletes a user with nothing for the audit log.
    public func deleteUser(id: UUID) async throws -> Bool { try await deleteUser(id: id, audit: []) }
}
