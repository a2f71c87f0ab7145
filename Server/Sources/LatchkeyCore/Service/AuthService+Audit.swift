import Foundation
import LatchkeyAPI

extension AuthService {
    /// An event about the account `userID` (known to people as `name`), made now. The actor is
    /// the operator bound in ``AuditContext`` when there is one, else the account itself; the
    /// address is `client`'s, else the context's.
    func auditEvent(
        _ action: AuditAction, userID: UUID?, name: String?, details: [String: JSONValue] = [:], client: ClientInfo? = nil
    ) -> AuditEvent {
        AuditEvents(time: time).event(action, userID: userID, name: name, details: details, client: client)
    }

    /// An event about `user`.
    func auditEvent(_ action: AuditAction, user: UserRecord, details: [String: JSONValue] = [:], client: ClientInfo? = nil) -> AuditEvent {
        auditEvent(action, userID: user.id, name: user.email ?? user.phone.map { "+" + $0 }, details: details, client: client)
    }

    /// One `code_sent` event per token: its kind, never the code.
    func codeSentEvents(_ tokens: [OneTimeTokenRecord], user: UserRecord) -> [AuditEvent] {
        tokens.map { auditEvent(.codeSent, user: user, details: ["kind": .string($0.kind.rawValue)]) }
    }

    /// A refused sign-in by `method`: `reason` is the error code answered. The user, when known,
    /// is read again for its name (the refusal left nothing else to read it from).
    func recordFailedSignIn(_ userID: UUID?, method: String, reason: String, client: ClientInfo) async throws {
        var user: UserRecord?
        if let userID { user = try await store.user(id: userID) }
        let details: [String: JSONValue] = ["method": .string(method), "reason": .string(reason)]
        try await store.appendAudit([
            AuditEvents(time: time).event(.loginFailed, user: user, orID: userID, details: details, client: client)
        ])
    }

    /// A sign-in of `user` by `method`.
    func loginEvent(_ user: UserRecord, method: String, client: ClientInfo?) -> AuditEvent {
        auditEvent(.login, user: user, details: ["method": .string(method)], client: client)
    }

    /// What a refused code records: the failure and, on the last attempt, the lock-out.
    func codeFailureAudit(client: ClientInfo?) -> @Sendable (OneTimeTokenRecord, Int) -> [AuditEvent] {
        { token, remaining in
            let details: [String: JSONValue] = ["kind": .string(token.kind.rawValue), "attempts_remaining": .number(Double(remaining))]
            var events = [auditEvent(.codeFailed, userID: token.userID, name: token.relatesTo, details: details, client: client)]
            if remaining == 0 {
                events.append(
                    auditEvent(
                        .lockout, userID: token.userID, name: token.relatesTo, details: ["kind": .string(token.kind.rawValue)],
                        client: client))
            }
            return events
        }
    }
}
