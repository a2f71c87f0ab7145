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
        let context = AuditContext.current
        return AuditEvent(
            id: random.uuid(), action: action, actorID: context.operatorName == nil ? userID : nil,
            actorName: context.operatorName ?? name ?? "anonymous", userID: userID, ip: client?.ip ?? context.ip,
            userAgent: client?.userAgent ?? context.userAgent, details: details, createdAt: time.now())
    }

    /// An event about `user`.
    public func event(_ action: AuditAction, user: UserRecord, details: [String: JSONValue] = [:], client: ClientInfo? = nil)
        -> AuditEvent
    {
        event(action, userID: user.id, name: user.email ?? user.phone.map { "+" + $0 }, details: details, client: client)
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
