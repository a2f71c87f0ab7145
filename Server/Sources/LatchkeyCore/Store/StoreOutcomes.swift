import Foundation

/// Which one-time token a redemption is about.
public enum OneTimeTokenSelector: Sendable, Equatable {
    /// The newest live token of one of these kinds for a user: a code typed by the user.
    case newest(userID: UUID, kinds: [OneTimeTokenKind])
    /// The token whose link secret hashes to this value, if it is of one of these kinds.
    case linkHash(String, kinds: [OneTimeTokenKind])
    /// The newest live token of one of these kinds for the user with this (canonical) email
    /// address. An address no user has looks for the tokens of an id no token has: the same
    /// work, so that neither the answer nor its time tells the two apart.
    case newestForEmail(String, kinds: [OneTimeTokenKind])
}

/// What redeeming a one-time token writes when it succeeds: the user, and either a session or
/// (for a PKCE link opened in a browser) a flow state whose code the redirect carries.
public struct TokenRedemption: Sendable {
    /// The user as it must be stored afterwards (confirmed, signed in).
    public var user: UserRecord
    /// The session to create.
    public var session: SessionRecord?
    /// The flow state to create instead of a session.
    public var flowState: FlowStateRecord?
    /// Outstanding tokens of these kinds survive (the other half of an email change); all other
    /// outstanding tokens of the user are voided.
    public var preserving: Set<OneTimeTokenKind>
    /// A new address for the user's `email` identity, created when the user has none.
    public var identityEmail: String?
    /// A new number for the user's `phone` identity, created when the user has none.
    public var identityPhone: String?
    /// Messages to queue with the change.
    public var outbox: [OutboxRecord]
    /// What the audit log records of it.
    public var audit: [AuditEvent]
    /// Where the token's request asked the user to be sent (a link's stored `redirect_to`).
    public var redirectTo: String?
    /// Set by the store when it stored a session: the user's identities and factors, read in the
    /// same transaction, for the session answer.
    public var account: AccountRecords?

    public init(
        user: UserRecord, session: SessionRecord? = nil, flowState: FlowStateRecord? = nil, preserving: Set<OneTimeTokenKind> = [],
        identityEmail: String? = nil, identityPhone: String? = nil, outbox: [OutboxRecord] = [],
        audit: [AuditEvent] = []
    ) {
        self.audit = audit
        self.identityPhone = identityPhone
        self.user = user
        self.session = session
        self.flowState = flowState
        self.preserving = preserving
        self.identityEmail = identityEmail
        self.outbox = outbox
    }
}

/// The result of trying to redeem a one-time token.
public enum RedemptionOutcome: Sendable {
    /// The code matched and was consumed; what the rules completed was stored.
    case redeemed(TokenRedemption)
    /// The code matched, but what it completes was refused (a banned user, a change replaced
    /// since): the token is left as it was.
    case rejected(AuthError)
    /// No live token matched the selector.
    case notFound
    /// The token has expired.
    case expired
    /// The token has used up its attempts.
    case exhausted
    /// The code did not match; the attempt was counted.
    case mismatch(attemptsRemaining: Int)
    /// The code was right and completes an email change whose notice to the old address must
    /// be sealed first (``CodeRedemption/Decision/prepare(_:)``): nothing but the counters was
    /// written; seal it and redeem again with it (``CodeRedemption/with(_:)``).
    case needsNotice(EmailChangeNotice)
}

/// What became of a device-key assertion (``DeviceKeySignInStore/redeemAssertion(keyID:jti:expiresAt:session:user:audit:)``).
public enum AssertionRedemption: Sendable, Equatable {
    /// Accepted: the session is stored.
    case redeemed
    /// Its `jti` was used before.
    case replayed
    /// The key was revoked in the meantime.
    case keyGone
}
