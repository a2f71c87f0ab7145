import Foundation
import LatchkeyAPI

/// The rules for redeeming one one-time token (a typed code, an opened link, a reauthentication
/// nonce), as a value the store runs on what it read
/// (``VerificationStore/redeem(_:limits:)``): which token, how it is proved, and what it
/// completes. ``decide(token:user:)`` is a plain function of the token and user read and of the
/// values ``Prepared`` drew before the transaction (the time, the audit context, the new
/// session's id and salt, the events' ids); the one sealed message a redemption can carry, the
/// email change's notice to the old address, is sealed before it too (``with(_:)``). The store
/// applies the ``Decision`` in the transaction that read the token, so no store code calls back
/// into a use case.
public struct CodeRedemption: Sendable {
    /// How the presenter proves the token is theirs.
    public enum Proof: Sendable {
        /// A typed code, compared in constant time with the token's hash.
        case code(String)
        /// A link secret: finding the token by its hash (``OneTimeTokenSelector/linkHash(_:kinds:)``) proves it.
        case link
    }

    /// What a matching token completes.
    public enum Completion: Sendable {
        /// An emailed code or link: the address confirmed and the user signed in by `method`.
        case emailSignIn(method: String)
        /// An SMS code: the number confirmed and the user signed in.
        case phoneSignIn
        /// A code sent to a new number: the user moves to it and is signed in.
        case phoneChange
        /// One of an email change's confirmations: counted, and the last one moves the user.
        case emailChange
        /// A reauthentication nonce: spent, every other outstanding token of the user kept.
        case nonce
    }

    /// A PKCE link opened in a browser: a flow state stands in for the session, and the
    /// redirect carries only a code for the app that holds the verifier.
    public struct BrowserFlow: Sendable {
        /// The hash of the authorization code the redirect carries.
        public var authCodeHash: String
        /// How long the app has to exchange it, in seconds.
        public var lifetime: Int

        public init(authCodeHash: String, lifetime: Int) {
            self.authCodeHash = authCodeHash
            self.lifetime = lifetime
        }
    }

    /// What the rules decide for the token read and its user.
    public enum Decision: Sendable {
        /// Nothing to redeem: write nothing and answer with this outcome (not found, expired,
        /// out of attempts).
        case refuse(RedemptionOutcome)
        /// A wrong code: count the attempt and record `audit`.
        case mismatch(attemptsRemaining: Int, audit: [AuditEvent])
        /// Count the attempt, spend the token, void the user's other outstanding tokens but
        /// those it preserves, and store what it completes.
        case redeem(TokenRedemption)
        /// The code was right but the user may not have what it completes (banned, or the
        /// change it confirms was replaced): record `audit`, leave the token as it was, and
        /// answer with `error`.
        case reject(AuthError, audit: [AuditEvent])
        /// The code was right and completes an email change, whose notice to the old address
        /// is not sealed yet for the user as read: write nothing, and answer
        /// ``RedemptionOutcome/needsNotice(_:)`` so that it is sealed and the rules asked again.
        case prepare(EmailChangeNotice)
    }

    /// Which token.
    public let selector: OneTimeTokenSelector
    /// The values drawn for the decision before the transaction.
    public let prepared: Prepared
    let maxAttempts: Int
    let proof: Proof
    let completion: Completion
    let browserFlow: BrowserFlow?
    let client: ClientInfo?
    /// The email change's notice, sealed for the user it was asked for.
    private(set) var notice: EmailChangeNotice?

    /// The rules, with `prepared`'s values.
    public init(
        selector: OneTimeTokenSelector, proof: Proof, completion: Completion, maxAttempts: Int, client: ClientInfo?,
        browserFlow: BrowserFlow? = nil, prepared: Prepared
    ) {
        self.selector = selector
        self.prepared = prepared
        self.maxAttempts = maxAttempts
        self.proof = proof
        self.completion = completion
        self.browserFlow = browserFlow
        self.client = client
        self.notice = nil
    }

    /// The rules, with values drawn now from `records` (``Prepared/init(_:)``).
    public init(
        selector: OneTimeTokenSelector, proof: Proof, completion: Completion, maxAttempts: Int, client: ClientInfo?,
        browserFlow: BrowserFlow? = nil, records: Records
    ) {
        self.init(
            selector: selector, proof: proof, completion: completion, maxAttempts: maxAttempts, client: client,
            browserFlow: browserFlow, prepared: Prepared(records))
    }

    /// The time the decision is made at.
    public var now: Date { prepared.now }

    /// The same rules, carrying `notice` (sealed) for the change it was asked for.
    public func with(_ notice: EmailChangeNotice) -> CodeRedemption {
        var rules = self
        rules.notice = notice
        return rules
    }

    /// What the rules decide for the outstanding token the selector found (`nil`: none) and its
    /// user (`nil`: gone).
    public func decide(token: OneTimeTokenRecord?, user: UserRecord?) -> Decision {
        guard let token, selector.kinds.contains(token.kind) else { return .refuse(.notFound) }
        if token.expiresAt <= now { return .refuse(.expired) }
        if token.attempts >= maxAttempts { return .refuse(.exhausted) }
        if case .code(let code) = proof, !OneTimeSecrets.codeMatches(code, userID: token.userID, storedHash: token.codeHash) {
            let remaining = max(0, maxAttempts - token.attempts - 1)
            return .mismatch(attemptsRemaining: remaining, audit: failureEvents(token, remaining: remaining))
        }
        guard let user, user.id == token.userID else { return .refuse(.notFound) }
        switch completed(user: user, token: token) {
        case .done(var redemption):
            redemption.redirectTo = token.redirectTo
            if let browserFlow, let challenge = token.challenge, redemption.session != nil {
                redemption.session = nil
                // The sign-in happens when the app exchanges the code.
                redemption.audit.removeAll { $0.action == .login }
                redemption.flowState = FlowStateRecord(
                    id: prepared.flowStateID, authCodeHash: browserFlow.authCodeHash, userID: user.id, challenge: challenge,
                    authenticationMethod: completion.method, createdAt: now, expiresAt: now.addingTimeInterval(Double(browserFlow.lifetime))
                )
            }
            return .redeem(redemption)
        case .refused(let error):
            return .reject(error, audit: error.code == .userBanned ? [refusedSignIn(user, reason: error.code.rawValue)] : [])
        case .needs(let notice):
            return .prepare(notice)
        }
    }

    /// An event of the decision's, made of the prepared values: number `index` of those it records.
    func event(
        _ action: AuditAction, _ index: Int, userID: UUID?, name: String?, details: [String: JSONValue] = [:]
    ) -> AuditEvent {
        AuditEvent(
            action, userID: userID, name: name, details: details, client: client, context: prepared.context,
            id: prepared.eventID(index), at: now)
    }

    /// ``event(_:_:userID:name:details:)`` about `user`.
    func event(_ action: AuditAction, _ index: Int, user: UserRecord, details: [String: JSONValue] = [:]) -> AuditEvent {
        AuditEvent(
            action, user: user, details: details, client: client, context: prepared.context, id: prepared.eventID(index), at: now)
    }

    /// What a refused code records: the failure and, on the last attempt, the lock-out.
    func failureEvents(_ token: OneTimeTokenRecord, remaining: Int) -> [AuditEvent] {
        let kind: JSONValue = .string(token.kind.rawValue)
        var details: [String: JSONValue] = ["kind": kind]
        details["attempts_remaining"] = AttemptCap.told(remaining).map { .number(Double($0)) }
        var events = [event(.codeFailed, 0, userID: token.userID, name: token.relatesTo, details: details)]
        if remaining == 0 {
            events.append(event(.lockout, 1, userID: token.userID, name: token.relatesTo, details: ["kind": kind]))
        }
        return events
    }

    /// A refused sign-in of `user`: `reason` is the error code answered.
    func refusedSignIn(_ user: UserRecord, reason: String) -> AuditEvent {
        event(.loginFailed, 0, user: user, details: ["method": .string(completion.method), "reason": .string(reason)])
    }
}

extension CodeRedemption.Completion {
    /// The `amr` method of the session it makes.
    var method: String {
        switch self {
        case .emailSignIn(let method): method
        case .phoneSignIn: "otp"
        case .phoneChange: "phone_change"
        case .emailChange: "email_change"
        case .nonce: "reauthentication"
        }
    }
}

extension OneTimeTokenSelector {
    /// The kinds of token the selector accepts.
    public var kinds: [OneTimeTokenKind] {
        switch self {
        case .newest(_, let kinds), .linkHash(_, let kinds), .newestForEmail(_, let kinds): kinds
        }
    }
}
