import Foundation
import LatchkeyAPI

/// `/verify`: a typed code with its address or number, or a link's secret. A code signs the
/// user in (confirming the address or number), moves the user to a new address or number, or
/// counts one of an email change's two confirmations; a PKCE link opened in a browser gives a
/// code for the app to exchange instead of a session.
///
/// The rules (newest code only, attempt cap and lock-out, expiry, a ban or a replaced change
/// refusing a right code) are ``CodeRedemption``, a value the store runs in the transaction that
/// reads the token; the client's `/verify` budget is counted in that transaction when it
/// redeems an email code (one commit for the whole request), and on its own otherwise.
public struct Verification: Sendable {
    /// What verification is configured with.
    public struct Settings: Sendable {
        /// Wrong codes a token takes before it is locked.
        public var maxAttempts: Int
        /// `/verify` requests per client IP.
        public var verifyPerIP: RateLimit
        /// Seconds a PKCE link's authorization code stays good.
        public var flowStateExpiry: Int

        public init(maxAttempts: Int, verifyPerIP: RateLimit, flowStateExpiry: Int) {
            self.maxAttempts = maxAttempts
            self.verifyPerIP = verifyPerIP
            self.flowStateExpiry = flowStateExpiry
        }

        /// The settings of `configuration`.
        public init(_ configuration: AuthConfiguration) {
            self.init(
                maxAttempts: configuration.otp.maxAttempts, verifyPerIP: configuration.rateLimits.verifyPerIP,
                flowStateExpiry: configuration.flowStateExpiry)
        }
    }

    /// What verifying a code or link gives: a session, or (the first of two email-change
    /// confirmations) GoTrue's half-way message.
    public enum Outcome: Sendable {
        case session(Session, redirectTo: String)
        case pending(String, redirectTo: String)
    }

    /// What a link opened in a browser gives: a session, a code for the app to exchange with its
    /// PKCE verifier, or an email change's half-way message.
    public enum LinkOutcome: Sendable {
        case session(Session, redirectTo: String)
        case authCode(String, redirectTo: String)
        case pending(String, redirectTo: String)
    }

    /// GoTrue's message for the first of two email-change confirmations.
    public static let emailChangeHalfway = "Confirmation link accepted. Please proceed to confirm link sent to the other email"
    /// What a code answers when its address has no code to compare with, known or not.
    static let noCodeRefusal = AuthError.codeRefused(reason: "invalid", attemptsRemaining: nil)

    let store: any VerificationStore
    let limiter: RateLimiter
    let settings: Settings
    let records: Records
    /// Where links may send the user.
    public let redirects: RedirectPolicy

    public init(store: any VerificationStore, limiter: RateLimiter, settings: Settings, records: Records, redirects: RedirectPolicy) {
        self.store = store
        self.limiter = limiter
        self.settings = settings
        self.records = records
        self.redirects = redirects
    }

    /// The type named in a request, or GoTrue's 400.
    public static func type(_ raw: String?) throws -> VerificationType {
        guard let raw, !raw.isEmpty else { throw AuthError.validation("Verify requires a verification type") }
        guard let type = VerificationType(rawValue: raw) else { throw AuthError.validation("Unsupported verification type") }
        return type
    }

    /// `POST /verify` with JSON: a code with its address or number, or a link's `token_hash`.
    /// The client's `/verify` budget is a value (``RateLimiter/counters(for:)``): counted in the
    /// transaction of an email code's redemption, the hot path (one commit), else on its own
    /// first, and for a request refused before either.
    public func verify(_ request: VerifyRequest, client: ClientInfo) async throws -> Outcome {
        let budget = limiter.counters(for: [verifyLimit(client)])
        let route: Route
        do {
            route = try Self.route(request)
        } catch {
            try await limiter.charge(budget)
            throw error
        }
        let redirect = redirects.resolve(request.redirectTo)
        let redeemed: TokenRedemption
        switch route {
        case .emailCode(let email, let token, let type):
            // One transaction finds the address's user and newest code, compares and redeems. An
            // unknown address looks for the code of an id no token has, the same work as a known
            // address with no code, and answers exactly like it.
            let rules = rules(.newestForEmail(email, kinds: type.kinds), .code(token), .emailSignIn(method: type.method), client)
            do {
                redeemed = try Self.redeemed(try await redeem(rules, limits: budget.counters))
            } catch let exceeded as RateLimitExceeded {
                throw limiter.refusal(from: exceeded, of: budget)
            }
        case .emailChangeCode(let email, let token):
            try await limiter.charge(budget)
            redeemed = try Self.redeemed(try await verifyEmailChange(email: email, token: token, client: client))
        case .phoneCode(let token, let type):
            try await limiter.charge(budget)
            redeemed = try Self.redeemed(try await verifyPhone(request.phone, type: type, token: token, client: client))
            guard redeemed.session != nil else { throw AuthError.otpInvalid }
        case .link(let tokenHash, let type):
            try await limiter.charge(budget)
            switch try await redeemLink(tokenHash, type: type, client: client, inBrowser: false) {
            case .session(let session, let redirect): return .session(session, redirectTo: redirect)
            case .pending(let message, let redirect): return .pending(message, redirectTo: redirect)
            case .authCode: throw AuthError.linkInvalid
            }
        }
        guard let session = redeemed.session else { return .pending(Self.emailChangeHalfway, redirectTo: redirect) }
        return .session(try await answer(redeemed, session: session), redirectTo: redirect)
    }

    /// What a `/verify` request asks for, read from it (GoTrue's 400s for what cannot be).
    enum Route {
        /// A link's secret, sent as `token_hash`.
        case link(String, VerificationType)
        /// A code typed with a number.
        case phoneCode(String, VerificationType)
        /// A code typed with an address, for an email change.
        case emailChangeCode(email: String, token: String)
        /// A code typed with an address: the hot path.
        case emailCode(email: String, token: String, type: VerificationType)
    }

    static func route(_ request: VerifyRequest) throws -> Route {
        let type = try Self.type(request.type)
        if let tokenHash = request.tokenHash, !tokenHash.isEmpty { return .link(tokenHash, type) }
        guard let token = request.token, !token.isEmpty else {
            throw AuthError.validation("Verify requires either a token or a token hash")
        }
        if type == .sms || type == .phoneChange || (request.email == nil && request.phone != nil) {
            guard type == .sms || type == .phoneChange else {
                throw AuthError.validation("A phone number is verified with type sms or phone_change")
            }
            return .phoneCode(token, type)
        }
        let email = try EmailAddress.requestAddress(request.email)
        // A code is short and numeric; anything else cannot match and is not worth a lookup.
        guard token.utf8.count <= 16 else { throw AuthError.otpInvalid }
        return type == .emailChange ? .emailChangeCode(email: email, token: token) : .emailCode(email: email, token: token, type: type)
    }

    /// Redeems by `rules`, counting `limits` in the transaction. When the decision needs the
    /// email change's notice sealed for the user as read, seals it here, before any transaction,
    /// and asks again with it (the counters went with the first call).
    func redeem(_ rules: CodeRedemption, limits: [RateLimitCounter] = []) async throws -> RedemptionOutcome {
        var rules = rules
        var limits = limits
        for _ in 0..<Self.maxNoticeRounds {
            let outcome = try await store.redeem(rules, limits: limits)
            guard case .needsNotice(let notice) = outcome else { return outcome }
            rules = rules.with(try notice.sealed(by: records.notices))
            limits = []
        }
        // The user changed under every sealed notice: as busy as a rate limit.
        throw AuthError.requestRateLimit
    }

    /// Rounds of sealing a notice for a user who keeps changing meanwhile.
    static let maxNoticeRounds = 8

    /// A link opened in a browser (`GET /verify`, or the confirmation page's form): counted
    /// against the client's `/verify` budget, then redeemed; a link asked for with a PKCE
    /// challenge gives a code instead of a session, so no token travels in a URL.
    public func openLink(_ secret: String, type: VerificationType, client: ClientInfo) async throws -> LinkOutcome {
        try await limiter.hit([verifyLimit(client)])
        return try await redeemLink(secret, type: type, client: client, inBrowser: true)
    }

    func verifyLimit(_ client: ClientInfo) -> RateLimiter.Limit {
        RateLimiter.Limit("ip:verify:\(client.limitKey)", settings.verifyPerIP)
    }

    /// Redeems a link secret (what the email link carries, accepted as `token_hash`). In a
    /// browser, a link asked for with a PKCE challenge yields an authorization code instead of
    /// a session.
    func redeemLink(_ secret: String, type: VerificationType, client: ClientInfo, inBrowser: Bool) async throws -> LinkOutcome {
        guard secret.utf8.count <= 128 else { throw AuthError.linkInvalid }
        // Only a browser gets an authorization code in place of a session.
        let authCode = inBrowser ? records.random.linkSecret() : nil
        let flow = authCode.map {
            CodeRedemption.BrowserFlow(authCodeHash: OneTimeSecrets.linkHash($0), lifetime: settings.flowStateExpiry)
        }
        let rules = CodeRedemption(
            selector: .linkHash(OneTimeSecrets.linkHash(secret), kinds: type.kinds), proof: .link, completion: type.linkCompletion,
            maxAttempts: settings.maxAttempts, client: client, browserFlow: flow, records: records)
        let outcome: RedemptionOutcome
        do {
            outcome = try await redeem(rules)
        } catch let error as StoreError where error.isDuplicate {
            throw AuthError.emailExists
        }
        switch outcome {
        case .redeemed(let redemption):
            let redirect = redirects.resolve(redemption.redirectTo)
            if let session = redemption.session { return .session(try await answer(redemption, session: session), redirectTo: redirect) }
            if redemption.flowState != nil, let authCode { return .authCode(authCode, redirectTo: redirect) }
            return .pending(Self.emailChangeHalfway, redirectTo: redirect)
        case .rejected(let error): throw error
        case .notFound, .expired, .exhausted, .mismatch, .needsNotice: throw AuthError.linkInvalid
        }
    }

    /// The rules for one redemption by this client.
    func rules(
        _ selector: OneTimeTokenSelector, _ proof: CodeRedemption.Proof, _ completion: CodeRedemption.Completion, _ client: ClientInfo
    ) -> CodeRedemption {
        CodeRedemption(
            selector: selector, proof: proof, completion: completion, maxAttempts: settings.maxAttempts, client: client, records: records)
    }

    /// The session answer for a redemption that stored `session`.
    func answer(_ redemption: TokenRedemption, session: SessionRecord) async throws -> Session {
        try await records.answers.answer(user: redemption.user, session: session, account: redemption.account)
    }

    /// What a successful redemption stored, or the error a refused code answers with.
    static func redeemed(_ outcome: RedemptionOutcome) throws -> TokenRedemption {
        switch outcome {
        case .redeemed(let redemption): return redemption
        case .rejected(let error): throw error
        case .mismatch(let remaining):
            throw AuthError.codeRefused(reason: remaining > 0 ? "invalid" : "exhausted", attemptsRemaining: AttemptCap.told(remaining))
        case .expired: throw AuthError.codeRefused(reason: "expired", attemptsRemaining: nil)
        case .exhausted: throw AuthError.codeRefused(reason: "exhausted", attemptsRemaining: 0)
        case .notFound: throw noCodeRefusal
        case .needsNotice: throw AuthError(.unexpectedFailure, "The email change's notice could not be prepared")
        }
    }
}
