import Foundation
import LatchkeyAPI

/// `POST /token?grant_type=pkce`: the authorization code a link's redirect carried, with the
/// verifier whose challenge asked for the link, exchanged for a session. The flow state is spent
/// only by the verifier its challenge asked for, in the transaction that reads it: a wrong one
/// (another request's, as an app with several links out tries its verifiers; a verifier cannot be
/// guessed) is refused and leaves the code to its owner, as GoTrue does. A ban that lands while the exchange is in flight wins (the session is written only
/// on the user as read, and decided again on a fresh copy).
public struct AuthCodeExchange: Sendable {
    let store: any AuthCodeExchangeStore
    let limiter: RateLimiter
    /// `/token` requests per client IP.
    let tokenPerIP: RateLimit
    let records: Records

    public init(store: any AuthCodeExchangeStore, limiter: RateLimiter, tokenPerIP: RateLimit, records: Records) {
        self.store = store
        self.limiter = limiter
        self.tokenPerIP = tokenPerIP
        self.records = records
    }

    static let badVerifier = AuthError(.badCodeVerifier, "code challenge does not match previously saved code verifier")
    static let notFound = AuthError(.flowStateNotFound, "invalid flow state, no valid flow state found")
    static let expired = AuthError(.flowStateExpired, "invalid flow state, flow state has expired")

    /// The session for the request's code and verifier. A refusal is recorded as a failed sign-in
    /// of the flow's user when there is a flow.
    public func exchange(_ request: PKCEGrantRequest, client: ClientInfo) async throws -> Session {
        try await limiter.hit([.tokenRequests(from: client, tokenPerIP)])
        guard let code = request.authCode, let verifier = request.codeVerifier, !code.isEmpty, !verifier.isEmpty else {
            throw AuthError.validation("invalid request: both auth code and code verifier should be non-empty")
        }
        guard code.utf8.count <= 128, (43...128).contains(verifier.count) else { throw Self.badVerifier }
        let now = records.time.now()
        let consumption = try await store.consumeFlowState(authCodeHash: OneTimeSecrets.linkHash(code), now: now) { flow in
            PKCEVerifier.matches(verifier: verifier, challenge: flow.challenge)
        }
        let consumed: ConsumedFlow
        switch consumption {
        case nil:
            try await recordRefusal(Self.notFound, user: nil, client: client)
            throw Self.notFound
        case .refused(let flow):
            let refusal = flow.expiresAt <= now ? Self.expired : Self.badVerifier
            try await recordRefusal(refusal, user: try await store.user(id: flow.userID), userID: flow.userID, client: client)
            throw refusal
        case .spent(let spent):
            consumed = spent
        }
        let flow = consumed.flow
        if flow.expiresAt <= now {
            try await recordRefusal(Self.expired, user: consumed.user, userID: flow.userID, client: client)
            throw Self.expired
        }
        guard let user = consumed.user else {
            try await recordRefusal(Self.notFound, user: nil, userID: flow.userID, client: client)
            throw Self.notFound
        }
        if flow.sessionID != nil {
            // A hosted page's sign-in: its session was made (and recorded) there, and is handed
            // over as it is, unless it ended since or the user was banned.
            guard let session = consumed.session, session.userID == user.id else {
                try await recordRefusal(Self.notFound, user: user, client: client)
                throw Self.notFound
            }
            if user.isBanned(at: now) {
                try await recordRefusal(AuthError.userBanned, user: user, client: client)
                throw AuthError.userBanned
            }
            return try await records.answers.answer(user: user, session: session)
        }
        let method = flow.authenticationMethod
        return try await store.onFreshCopies(of: user) { user in
            if user.isBanned(at: now) {
                try await recordRefusal(AuthError.userBanned, user: user, client: client)
                throw AuthError.userBanned
            }
            let signedIn = user.signedInByEmail(at: now)
            let session = records.answers.newSession(for: signedIn, method: method, client: client, now: now)
            try await store.createSession(
                session, user: signedIn,
                audit: [records.events.event(.login, user: signedIn, details: ["method": .string(method)], client: client)])
            return try await records.answers.answer(user: signedIn, session: session)
        }
    }

    /// A refused exchange in the audit log: of `user` when it was read, else of the flow's
    /// `userID` (a user deleted since), else of nobody.
    func recordRefusal(_ refusal: AuthError, user: UserRecord?, userID: UUID? = nil, client: ClientInfo) async throws {
        let details: [String: JSONValue] = ["method": "pkce", "reason": .string(refusal.code.rawValue)]
        try await store.appendAudit([records.events.event(.loginFailed, user: user, orID: userID, details: details, client: client)])
    }
}
