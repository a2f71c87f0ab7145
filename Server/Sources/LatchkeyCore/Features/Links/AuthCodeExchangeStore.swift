import Foundation

/// A flow state spent by ``AuthCodeExchangeStore/consumeFlowState(authCodeHash:now:)``, with its
/// user as read in the same transaction (`nil` when the user is gone).
public struct ConsumedFlow: Sendable, Equatable {
    public var flow: FlowStateRecord
    public var user: UserRecord?
    /// The session the flow hands over, when it names one that still exists.
    public var session: SessionRecord?

    public init(flow: FlowStateRecord, user: UserRecord?, session: SessionRecord? = nil) {
        self.flow = flow
        self.user = user
        self.session = session
    }
}

/// What ``AuthCodeExchangeStore/consumeFlowState(authCodeHash:now:accepting:)`` did.
public enum FlowConsumption: Sendable, Equatable {
    /// Spent now.
    case spent(ConsumedFlow)
    /// Refused by the caller and left unspent.
    case refused(FlowStateRecord)
}

/// What the PKCE grant needs from storage: the flow state spent once, and the session written
/// with the signed-in user.
public protocol AuthCodeExchangeStore: UserReading, AuditWriting {
    /// Marks the unspent flow state with this code hash spent at `now` when `accepting` accepts
    /// it (its challenge matches the verifier sent) and returns it with its user; one refused is
    /// returned as it is and stays unspent; `nil` when no unspent one has the hash. Of requests
    /// racing with one code, one spends it. A flow that hands over a session comes with it, read
    /// in the same transaction.
    func consumeFlowState(authCodeHash: String, now: Date, accepting: @escaping @Sendable (FlowStateRecord) -> Bool)
        async throws -> FlowConsumption?
    /// Stores a flow state (a hosted page's hand-over of a session it made).
    func createFlowState(_ flow: FlowStateRecord) async throws
    /// Stores a new session, the signed-in user and `audit`, all or nothing, the user only at the
    /// version it was read at (``StoreError/conflict(_:)`` otherwise).
    func createSession(_ session: SessionRecord, user: UserRecord, audit: [AuditEvent]) async throws
}

extension AuthCodeExchangeStore {
    /// Spends the unspent flow state with this code hash whatever it holds.
    public func consumeFlowState(authCodeHash: String, now: Date) async throws -> ConsumedFlow? {
        guard case .spent(let consumed) = try await consumeFlowState(authCodeHash: authCodeHash, now: now, accepting: { _ in true })
        else { return nil }
        return consumed
    }
}
