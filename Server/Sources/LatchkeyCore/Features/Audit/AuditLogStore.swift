import Foundation

/// What the audit log needs from storage beyond the events other writes record in their own
/// transactions: events that go with no other write, the read, and the retention.
public protocol AuditLogStore: AuditWriting {
    /// The events matching `query`, newest first (events of one instant in the order they were
    /// recorded, latest first), and how many match in all.
    func auditEvents(_ query: AuditQuery) async throws -> (events: [AuditEvent], total: Int)
    /// Deletes the events written before `date`; returns how many went.
    func deleteAuditEvents(before date: Date) async throws -> Int
}
