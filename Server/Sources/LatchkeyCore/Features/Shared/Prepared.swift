import Foundation

/// What a decision made inside a store's step draws on, drawn before the step (issue #38): the
/// time, the request's audit context, new ids and a refresh salt. A decision is then a plain
/// function of what the step read and of these values: it reads no clock, no randomness and no
/// task-local, so a store runs it in its transaction without reaching back into a use case.
public struct Prepared: Sendable, Equatable {
    /// The time of the decision.
    public let now: Date
    /// The request's audit context (its operator, address and agent), read when the values were drawn.
    public let context: AuditContext
    /// The id of a session, should the decision make one.
    public let sessionID: UUID
    /// The refresh-token salt of that session.
    public let refreshSalt: [UInt8]
    /// The id of a flow state, should the decision make one.
    public let flowStateID: UUID
    /// Ids for the audit events the decision may record, used in order.
    public let eventIDs: [UUID]

    public init(now: Date, context: AuditContext, sessionID: UUID, refreshSalt: [UInt8], flowStateID: UUID, eventIDs: [UUID]) {
        self.now = now
        self.context = context
        self.sessionID = sessionID
        self.refreshSalt = refreshSalt
        self.flowStateID = flowStateID
        self.eventIDs = eventIDs
    }

    /// Values drawn from `records`' clock and randomness, in the task's audit context.
    public init(_ records: Records) {
        let random = records.random
        let now = records.time.now()
        self.init(
            now: now, context: .current, sessionID: random.orderedUUID(at: now), refreshSalt: random.bytes(32),
            flowStateID: random.orderedUUID(at: now),
            eventIDs: [random.orderedUUID(at: now), random.orderedUUID(at: now), random.orderedUUID(at: now)])
    }

    /// The id of the decision's event number `index` (from 0).
    func eventID(_ index: Int) -> UUID { eventIDs[index] }
}
