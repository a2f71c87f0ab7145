import Foundation
import LatchkeyAPI
import Logging

/// `POST /token?grant_type=refresh_token`: a new access token and the session's next refresh
/// token. A token is good once; a retried or concurrent refresh within the reuse interval gets
/// the successor again; an older token revokes the session (reuse detection); a banned user, an
/// ended session or one past its timebox or inactivity timeout is refused.
///
/// The rules are a value (``Rules``: the decision, ``decide(token:session:user:now:settings:codec:)``,
/// and the ``RefreshWrite`` it makes) that the store runs on what it read: a plain function of
/// the session and user read and of values prepared before the call (the time, the request's
/// audit context, the id of the event it may record), so it reads no clock, no randomness and no
/// task-local. Every store reads, decides and writes in one step: the SQL stores in one
/// transaction with the session's row locked, as this hottest path had it before (a read on a
/// reader first, then a conditional write, cost 25 % more CPU per refresh and 14 % of the
/// throughput), the in-memory store under its lock. The client's `/token` budget is a value too
/// (``RateLimiter/counters(for:)``), counted in that step.
public struct SessionRefresh: Sendable {
    /// What the grant is configured with.
    public struct Settings: Sendable {
        public var sessions: SessionSettings
        /// `/token` requests per client IP.
        public var tokenPerIP: RateLimit

        public init(sessions: SessionSettings, tokenPerIP: RateLimit) {
            self.sessions = sessions
            self.tokenPerIP = tokenPerIP
        }

        /// The settings of `configuration`.
        public init(_ configuration: AuthConfiguration) {
            self.init(sessions: configuration.sessions, tokenPerIP: configuration.rateLimits.tokenPerIP)
        }
    }

    /// What the rules decide for a presented token.
    public enum Decision: Sendable, Equatable {
        /// Move the session's counter on and store this version of it.
        case rotate(SessionRecord)
        /// Answer with the current token again (a retried or concurrent refresh).
        case reuse(SessionRecord)
        /// End the session (reuse detected, or expired) and answer with this error.
        case revoke(AuthError)
        /// Answer with this error and change nothing.
        case reject(AuthError)
    }

    /// Refreshes that lose a race with another write to their session and read again.
    static let maxRaces = 32

    let store: any SessionRefreshStore
    let limiter: RateLimiter
    let settings: Settings
    let answers: SessionAnswers
    let time: any TimeSource
    let logger: Logger

    public init(
        store: any SessionRefreshStore, limiter: RateLimiter, settings: Settings, answers: SessionAnswers, time: any TimeSource,
        logger: Logger
    ) {
        self.store = store
        self.limiter = limiter
        self.settings = settings
        self.answers = answers
        self.time = time
        self.logger = logger
    }

    /// The session that follows the request's refresh token. The client's `/token` budget is
    /// counted in the write's transaction (one commit), or on its own for a request refused before it.
    public func refresh(_ request: RefreshTokenGrantRequest, client: ClientInfo) async throws -> Session {
        try await refreshed(request, client: client, oauthClientID: nil).0
    }

    /// ``refresh(_:client:)`` for the sessions of the OAuth client `oauthClientID` (`nil`: the
    /// app's own sessions; a token of the other kind is refused), with the session answered.
    public func refreshed(_ request: RefreshTokenGrantRequest, client: ClientInfo, oauthClientID: UUID?) async throws -> (
        Session, SessionRecord
    ) {
        let budget = limiter.counters(for: [.tokenRequests(from: client, settings.tokenPerIP)])
        guard let token = request.refreshToken, !token.isEmpty else {
            try await limiter.charge(budget)
            throw AuthError.oauthInvalidRequest("refresh_token required")
        }
        guard let peeked = answers.refreshCodec.peek(token) else {
            try await limiter.charge(budget)
            throw AuthError.refreshTokenNotFound
        }
        // The first call counts the budget; one that lost a race has counted it already.
        var counters = budget.counters
        for _ in 0..<Self.maxRaces {
            let now = time.now()
            let rules = Rules(
                sessionID: peeked.sessionID, token: token, now: now, settings: settings.sessions, codec: answers.refreshCodec,
                client: client, context: .current, eventID: answers.random.orderedUUID(at: now), oauthClientID: oauthClientID)
            let outcome: (Decision, AccountRecords)?
            do {
                outcome = try await store.refresh(rules, limits: counters)
            } catch let exceeded as RateLimitExceeded {
                throw limiter.refusal(from: exceeded, of: budget)
            }
            counters = []
            guard let (decision, account) = outcome else { continue }
            switch decision {
            case .rotate(let answered), .reuse(let answered):
                guard let user = account.user else { throw AuthError.refreshTokenNotFound }
                return (try await answers.answer(user: user, session: answered, account: account), answered)
            case .revoke(let error):
                if error.code == .refreshTokenAlreadyUsed {
                    logger.warning(
                        "refresh token reuse detected; session revoked",
                        metadata: ["session_id": "\(peeked.sessionID)", "ip": "\(client.ip)"])
                }
                throw error
            case .reject(let error):
                throw error
            }
        }
        throw AuthError.requestRateLimit
    }

    /// The refresh rules for one presented token, as a value the store runs on what it read
    /// (``SessionRefreshStore/refresh(_:limits:)``): plain functions of what was read and of the
    /// values prepared here, no I/O, no clock, no randomness, no task-local.
    public struct Rules: Sendable {
        /// The session the token names (unverified until ``decide(session:user:)``).
        public let sessionID: UUID
        let token: String
        let now: Date
        let settings: SessionSettings
        let codec: RefreshTokenCodec
        let client: ClientInfo
        /// The request's audit context, read when the rules were made.
        let context: AuditContext
        /// The id of the reuse event, should the decision record one.
        public let eventID: UUID
        /// The OAuth client whose session the token must be (`nil`: one of the app's own).
        let oauthClientID: UUID?

        public init(
            sessionID: UUID, token: String, now: Date, settings: SessionSettings, codec: RefreshTokenCodec, client: ClientInfo,
            context: AuditContext = AuditContext(), eventID: UUID, oauthClientID: UUID? = nil
        ) {
            self.oauthClientID = oauthClientID
            self.sessionID = sessionID
            self.token = token
            self.now = now
            self.settings = settings
            self.codec = codec
            self.client = client
            self.context = context
            self.eventID = eventID
        }

        /// What the rules decide for the stored session and its user.
        public func decide(session: SessionRecord?, user: UserRecord?) -> Decision {
            SessionRefresh.decide(
                token: token, session: session, user: user, now: now, settings: settings, codec: codec, oauthClientID: oauthClientID)
        }

        /// What `decision` writes: `nil` for a refusal, which writes nothing. Reuse detection
        /// records a `refresh_token_reuse` event of the user.
        public func write(for decision: Decision, user: UserRecord?) -> RefreshWrite? {
            switch decision {
            case .rotate(let next): return .rotate(next)
            case .reuse(let current): return .reuse(current)
            case .revoke(let error):
                var audit: [AuditEvent] = []
                if error.code == .refreshTokenAlreadyUsed, let user {
                    audit.append(
                        AuditEvent(
                            .refreshTokenReuse, user: user, details: ["session_id": .string(sessionID.lowercasedString)],
                            client: client, context: context, id: eventID, at: now))
                }
                return .revoke(sessionID: sessionID, audit: audit)
            case .reject: return nil
            }
        }
    }

    /// The refresh rules, as a plain function of the stored session and user.
    static func decide(
        token: String, session: SessionRecord?, user: UserRecord?, now: Date, settings: SessionSettings, codec: RefreshTokenCodec,
        oauthClientID: UUID? = nil
    ) -> Decision {
        guard let session, let presented = codec.authenticate(token, salt: session.refreshSalt) else {
            return .reject(.refreshTokenNotFound)
        }
        // A client's session refreshes at `/oauth/token` with that client's credentials alone;
        // the app's own sessions only at `/token` (GoTrue's rule).
        if session.oauthClientID != oauthClientID {
            return .reject(
                AuthError(
                    .refreshTokenNotFound,
                    session.oauthClientID == nil
                        ? "Client authentication not allowed for non-OAuth session" : "Refresh token was issued to another OAuth client",
                    oauthError: "invalid_grant"))
        }
        guard let user, user.id == session.userID else { return .revoke(.refreshTokenNotFound) }
        if user.isBanned(at: now) { return .reject(.userBanned) }
        if settings.timebox > 0, now.timeIntervalSince(session.createdAt) > Double(settings.timebox) {
            return .revoke(.sessionExpired)
        }
        let lastActive = session.refreshedAt ?? session.createdAt
        if settings.inactivityTimeout > 0, now.timeIntervalSince(lastActive) > Double(settings.inactivityTimeout) {
            return .revoke(.sessionExpired)
        }
        let behind = session.refreshCounter - presented.counter
        if behind < 0 { return .reject(.refreshTokenNotFound) }
        if behind == 0 {
            var next = session
            next.refreshCounter += 1
            next.refreshedAt = now
            next.updatedAt = now
            return .rotate(next)
        }
        if behind == 1, let refreshedAt = session.refreshedAt, now.timeIntervalSince(refreshedAt) <= Double(settings.refreshReuseInterval) {
            return .reuse(session)
        }
        return .revoke(.refreshTokenAlreadyUsed)
    }
}
