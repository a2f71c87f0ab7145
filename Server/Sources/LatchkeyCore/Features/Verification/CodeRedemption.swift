import Foundation
import LatchkeyAPI

/// The rules for redeeming one one-time token (a typed code, an opened link, a reauthentication
/// nonce), as a value the store runs on what it read
/// (``VerificationStore/redeem(_:limits:)``): which token, how it is proved, and what it
/// completes. ``decide(token:user:)`` is a plain function, no I/O; the store applies the
/// ``Decision`` it gives in the transaction that read the token, so no store code calls back
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
    }

    /// Which token.
    public let selector: OneTimeTokenSelector
    /// The time the decision is made at.
    public let now: Date
    let maxAttempts: Int
    let proof: Proof
    let completion: Completion
    let browserFlow: BrowserFlow?
    let client: ClientInfo?
    let records: Records

    public init(
        selector: OneTimeTokenSelector, proof: Proof, completion: Completion, maxAttempts: Int, client: ClientInfo?,
        browserFlow: BrowserFlow? = nil, records: Records
    ) {
        self.selector = selector
        self.now = records.time.now()
        self.maxAttempts = maxAttempts
        self.proof = proof
        self.completion = completion
        self.browserFlow = browserFlow
        self.client = client
        self.records = records
    }

    /// What the rules decide for the outstanding token the selector found (`nil`: none) and its
    /// user (`nil`: gone). Throws only when a message cannot be sealed.
    public func decide(token: OneTimeTokenRecord?, user: UserRecord?) throws -> Decision {
        guard let token, selector.kinds.contains(token.kind) else { return .refuse(.notFound) }
        if token.expiresAt <= now { return .refuse(.expired) }
        if token.attempts >= maxAttempts { return .refuse(.exhausted) }
        if case .code(let code) = proof, !OneTimeSecrets.codeMatches(code, userID: token.userID, storedHash: token.codeHash) {
            let remaining = max(0, maxAttempts - token.attempts - 1)
            return .mismatch(attemptsRemaining: remaining, audit: failureEvents(token, remaining: remaining))
        }
        guard let user, user.id == token.userID else { return .refuse(.notFound) }
        switch try completed(user: user, token: token) {
        case .success(var redemption):
            redemption.redirectTo = token.redirectTo
            if let browserFlow, let challenge = token.challenge, redemption.session != nil {
                redemption.session = nil
                // The sign-in happens when the app exchanges the code.
                redemption.audit.removeAll { $0.action == .login }
                redemption.flowState = FlowStateRecord(
                    id: records.random.uuid(), authCodeHash: browserFlow.authCodeHash, userID: user.id, challenge: challenge,
                    authenticationMethod: completion.method, createdAt: now, expiresAt: now.addingTimeInterval(Double(browserFlow.lifetime))
                )
            }
            return .redeem(redemption)
        case .failure(let error):
            return .reject(error, audit: error.code == .userBanned ? [refusedSignIn(user, reason: error.code.rawValue)] : [])
        }
    }

    /// What a refused code records: the failure and, on the last attempt, the lock-out.
    func failureEvents(_ token: OneTimeTokenRecord, remaining: Int) -> [AuditEvent] {
        let kind: JSONValue = .string(token.kind.rawValue)
        var details: [String: JSONValue] = ["kind": kind]
        details["attempts_remaining"] = AttemptCap.told(remaining).map { .number(Double($0)) }
        var events = [
            records.events.event(.codeFailed, userID: token.userID, name: token.relatesTo, details: details, client: client)
        ]
        if remaining == 0 {
            events.append(
                records.events.event(.lockout, userID: token.userID, name: token.relatesTo, details: ["kind": kind], client: client))
        }
        return events
    }

    /// A refused sign-in of `user`: `reason` is the error code answered.
    func refusedSignIn(_ user: UserRecord, reason: String) -> AuditEvent {
        records.events.event(
            .loginFailed, user: user, details: ["method": .string(completion.method), "reason": .string(reason)], client: client)
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
