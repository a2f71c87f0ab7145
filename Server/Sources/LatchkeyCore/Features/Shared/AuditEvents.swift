import Foundation
import LatchkeyAPI

/// Builds audit events the one way: the actor (a user, or the operator bound in
/// ``AuditContext``), the client address and agent of the request, the clock's time, and an id
/// from the injected randomness.
public struct AuditEvents: Sendable {
    let time: any TimeSource
    let random: any RandomSource

    public init(time: any TimeSource, random: any RandomSource) {
        self.time = time
        self.random = random
    }

    /// An event about the account `userID`, named `name` for people.
    public func event(
        _ action: AuditAction, userID: UUID?, name: String?, details: [String: JSONValue] = [:], client: ClientInfo? = nil
    ) -> AuditEvent {
        let now = time.now()
        return AuditEvent(
            action, userID: userID, name: name, details: details, client: client, context: .current, id: random.orderedUUID(at: now),
            at: now)
    }

    /// An event about `user`.
    public func event(_ action: AuditAction, user: UserRecord, details: [String: JSONValue] = [:], client: ClientInfo? = nil)
        -> AuditEvent
    {
        let now = time.now()
        return AuditEvent(action, user: user, details: details, client: client, context: .current, id: random.orderedUUID(at: now), at: now)
    }

    /// An event about `user` when it was read, else about the account `userID` (deleted since,
    /// or never known) under `name`: what a refused sign-in records.
    public func event(
        _ action: AuditAction, user: UserRecord?, orID userID: UUID?, name: String? = nil, details: [String: JSONValue] = [:],
        client: ClientInfo? = nil
    ) -> AuditEvent {
        if let user { return event(action, user: user, details: details, client: client) }
        return event(action, userID: userID, name: name, details: details, client: client)
    }
}

extension AuditEvent {
    /// An event about the account `userID` (named `name` for people), made only of what it is
    /// given: the request's `context` (its operator, address and agent, where `client` says
    /// none), an id and a time drawn beforehand. What a decision inside a store's transaction
    /// builds its events with: no clock, no randomness, no task-local.
    public init(
        _ action: AuditAction, userID: UUID?, name: String?, details: [String: JSONValue] = [:], client: ClientInfo?,
        context: AuditContext, id: UUID, at date: Date
    ) {
        self.init(
            id: id, action: action, actorID: context.operatorName == nil ? userID : nil,
            actorName: context.operatorName ?? name ?? "anonymous", userID: userID, ip: client?.ip ?? context.ip,
            userAgent: client?.userAgent ?? context.userAgent, details: details, createdAt: date)
    }

    /// ``init(_:userID:name:details:client:context:id:at:)`` about `user`, named by address or number.
    public init(
        _ action: AuditAction, user: UserRecord, details: [String: JSONValue] = [:], client: ClientInfo?, context: AuditContext,
        id: UUID, at date: Date
    ) {
        self.init(
            action, userID: user.id, name: user.email ?? user.phone.map { "+" + $0 }, details: details, client: client,
            context: context, id: id, at: date)
    }
}
