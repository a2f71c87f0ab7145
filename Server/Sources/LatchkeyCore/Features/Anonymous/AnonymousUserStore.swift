import Foundation

/// What anonymous sign-ups need from storage: a user with its first session, and the deletion
/// of stale ones on the precondition that they are still anonymous.
public protocol AnonymousUserStore: Sendable {
    /// Inserts an anonymous user (no identity) with its first session and `audit`, in one
    /// transaction.
    func createAnonymousUser(_ user: UserRecord, session: SessionRecord, audit: [AuditEvent]) async throws
    /// The ids of up to `limit` anonymous users made before `date`, oldest first.
    func anonymousUsers(createdBefore date: Date, limit: Int) async throws -> [UUID]
    /// Deletes, in one transaction, those of `ids` that are still anonymous and made before
    /// `date` (a user who became permanent since it was read stays), with everything they own,
    /// and records the event `audit` holds for each deleted one; returns the ids deleted.
    func deleteAnonymousUsers(_ ids: [UUID], createdBefore date: Date, audit: [UUID: AuditEvent]) async throws -> [UUID]
}
