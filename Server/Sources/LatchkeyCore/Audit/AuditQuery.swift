import Foundation

/// Which audit events to read, newest first.
public struct AuditQuery: Sendable, Equatable {
    /// Only events about this account.
    public var userID: UUID?
    /// Only these actions (all when empty).
    public var actions: [AuditAction]
    /// Only events at or after this time.
    public var since: Date?
    public var offset: Int
    public var limit: Int

    public init(userID: UUID? = nil, actions: [AuditAction] = [], since: Date? = nil, offset: Int = 0, limit: Int = 50) {
        self.userID = userID
        self.actions = actions
        self.since = since
        self.offset = offset
        self.limit = limit
    }
}
