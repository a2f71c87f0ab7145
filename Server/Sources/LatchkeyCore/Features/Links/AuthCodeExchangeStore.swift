import Foundation

/// A flow state spent by ``AuthCodeExchangeStore/consumeFlowState(authCodeHash:now:)``, with its
/// user as read in the same transaction (`nil` when the user is gone).
public struct ConsumedFlow: Sendable, Equatable {
    public var flow: FlowStateRecord
    public var user: UserRecord?

    public init(flow: FlowStateRecord, user: UserRecord?) {
        self.flow = flow
        self.user = user
    }
}

/// What the PKCE grant needs from storage: the flow state spent once, and the session written
/// with the signed-in user.
public protocol AuthCodeExchangeStore: UserReading, AuditWriting {
    /// Marks the unspent flow state with this code hash spent at `now` (one try: whatever the
    /// grant decides next) and returns it with its user; `nil` when no unspent one has the hash.
    /// Of requests racing with one code, one gets it.
    func consumeFlowState(authCodeHash: String, now: Date) async throws -> ConsumedFlow?
    /// Stores a new session, the signed-in user and `audit`, all or nothing, the user only at the
    /// version it was read at (``StoreError/conflict(_:)`` otherwise).
    func createSession(_ session: SessionRecord, user: UserRecord, audit: [AuditEvent]) async throws
}
