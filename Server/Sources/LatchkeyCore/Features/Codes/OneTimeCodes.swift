import Foundation
import LatchkeyAPI

/// Sending codes and links: `POST /otp` (by email or SMS), `POST /magiclink`, `POST /recover`,
/// `POST /resend` and `GET /reauthenticate`.
///
/// Known and unknown addresses answer alike unless the request states its `intent`; a banned
/// user's request answers like any other and sends nothing; the client's budgets are counted
/// in the transaction that stores a new address's user and code (one commit for the whole
/// request), and on their own before any other write.
public struct OneTimeCodes: Sendable {
    /// What these endpoints are configured with beyond ``Codes/Settings``.
    public struct Settings: Sendable {
        /// No new users (`GOTRUE_DISABLE_SIGNUP`).
        public var disableSignup: Bool
        /// Whether phone numbers may sign in (`GOTRUE_EXTERNAL_PHONE_ENABLED`).
        public var phoneEnabled: Bool
        /// The largest `data` (user metadata) in bytes of JSON.
        public var userMetadataMaxBytes: Int

        public init(disableSignup: Bool, phoneEnabled: Bool, userMetadataMaxBytes: Int) {
            self.disableSignup = disableSignup
            self.phoneEnabled = phoneEnabled
            self.userMetadataMaxBytes = userMetadataMaxBytes
        }

        /// The settings of `configuration`.
        public init(_ configuration: AuthConfiguration) {
            self.init(
                disableSignup: configuration.disableSignup, phoneEnabled: configuration.sms.enabled,
                userMetadataMaxBytes: configuration.userMetadataMaxBytes)
        }
    }

    let store: any CodeStore
    let codes: Codes
    let limiter: RateLimiter
    let settings: Settings

    public init(store: any CodeStore, codes: Codes, limiter: RateLimiter, settings: Settings) {
        self.store = store
        self.codes = codes
        self.limiter = limiter
        self.settings = settings
    }

    var time: any TimeSource { codes.time }

    /// `POST /otp`: a code (and link) that signs the user in, creating the user first when
    /// `create_user` allows it. With Latchkey's `intent` the answer says whether the account
    /// exists (`signin`: `user_not_found`; `signup`: `user_already_exists`).
    ///
    /// The client's budgets are values (``RateLimiter/counters(for:)``): a new address's user, its
    /// code and its message are stored in one transaction that counts them with the address's
    /// email budgets (one commit for the request); every other request counts them on its own
    /// before it writes or answers, a refused one too.
    public func sendOTP(_ request: OTPRequest, redirectTo: String?, client: ClientInfo) async throws -> OTPResponse {
        let budget = limiter.counters(for: codes.sendLimits(client))
        let route: OTPRoute
        do {
            route = try await self.route(request)
        } catch {
            try await limiter.charge(budget)
            throw error
        }
        switch route {
        case .newUser(let email, let challenge):
            return try await sendToNewUser(email, challenge: challenge, request: request, redirectTo: redirectTo, budget: budget)
        case .phone:
            try await limiter.charge(budget)
            return try await sendPhoneOTP(request)
        case .knownUser(let user, let email, let challenge):
            try await limiter.charge(budget)
            if !user.isBanned(at: time.now()) { try await sendSignInCode(to: user, redirectTo: redirectTo, challenge: challenge) }
            return codes.info(sentTo: email)
        case .refused(let error):
            try await limiter.charge(budget)
            throw error
        }
    }

    /// A new user for `email` with its first code and message.
    private func sendToNewUser(
        _ email: String, challenge: PKCEChallenge?, request: OTPRequest, redirectTo: String?, budget: LimitCounters
    ) async throws -> OTPResponse {
        // The new user, its code and the message carrying it, in one transaction that also counts
        // the client's and the address's budgets.
        let (user, identity) = codes.newUser(email: email, passwordHash: nil, data: request.data ?? [:], confirmed: false)
        let now = time.now()
        let resolved = codes.redirects.resolve(redirectTo)
        var pending = user
        pending.confirmationSentAt = now
        let issued = codes.make(for: pending, kind: .confirmation, address: email, redirectTo: resolved, challenge: challenge, now: now)
        let mail: [OutboxRecord]
        do {
            mail = try codes.records.notices.rows([codes.message(for: issued, user: pending, redirectTo: resolved)])
        } catch {
            try await limiter.charge(budget)
            throw error
        }
        let counted = budget.adding(limiter.counters(for: codes.emailLimits(to: email)))
        let inserted: Bool
        do {
            inserted = try await codes.insert(pending, identity: identity, token: issued.record, outbox: mail, limits: counted.counters)
        } catch let exceeded as RateLimitExceeded {
            throw limiter.refusal(from: exceeded, of: counted)
        }
        if inserted { return codes.info(sentTo: email) }
        // Lost a race with a concurrent sign-up of the same address: that transaction stored
        // nothing, the counters neither. Count the client's budgets, and send to the winner.
        try await limiter.charge(budget)
        if let winner = try await store.user(email: email) {
            try await sendSignInCode(to: winner, redirectTo: redirectTo, challenge: challenge)
        }
        return codes.info(sentTo: email)
    }

    /// The code that signs `user` in: a magic link once the address is confirmed, else its confirmation.
    private func sendSignInCode(to user: UserRecord, redirectTo: String?, challenge: PKCEChallenge?) async throws {
        try await codes.send(
            to: user, kind: user.isEmailConfirmed ? .magiclink : .confirmation, redirectTo: redirectTo, challenge: challenge)
    }

    /// `POST /magiclink` (GoTrue's legacy endpoint): like `POST /otp` by email, creating unknown users.
    public func magicLink(_ request: OTPRequest, redirectTo: String?, client: ClientInfo) async throws -> OTPResponse {
        var request = request
        // GoTrue's `/magiclink` reads an email only.
        request.createUser = true
        request.intent = nil
        request.phone = nil
        request.channel = nil
        return try await sendOTP(request, redirectTo: redirectTo, client: client)
    }

    /// What a `POST /otp` asks for, read from it and from the address's user.
    enum OTPRoute {
        /// A code by SMS.
        case phone
        /// A code for the address's user.
        case knownUser(UserRecord, email: String, challenge: PKCEChallenge?)
        /// A new user for the address, with its first code.
        case newUser(email: String, challenge: PKCEChallenge?)
        /// GoTrue's answer for a request it refuses once the address is known (its budget counted).
        case refused(AuthError)
    }

    /// The route of `request`; GoTrue's 400s and 422s for what cannot be read.
    func route(_ request: OTPRequest) async throws -> OTPRoute {
        // GoTrue's rules: an empty string counts as none; an email or a phone, not both; a
        // channel only with a phone.
        let hasEmail = !(request.email?.isEmpty ?? true)
        let hasPhone = !(request.phone?.isEmpty ?? true)
        if hasEmail, hasPhone { throw AuthError.validation("Only an email address or phone number should be provided") }
        if hasEmail, !(request.channel?.isEmpty ?? true) { throw AuthError.validation("Channel should only be specified with Phone OTP") }
        if hasPhone { return .phone }
        let email = try EmailAddress.requestAddress(request.email)
        try UserMetadata.check(request.data ?? [:], maxBytes: settings.userMetadataMaxBytes)
        let challenge = try PKCEChallenge.parse(challenge: request.codeChallenge, method: request.codeChallengeMethod)
        let intent = try Self.intent(request.intent)
        if let user = try await store.user(email: email) {
            if intent == "signup", user.isEmailConfirmed { return .refused(AuthError.userAlreadyExists) }
            return .knownUser(user, email: email, challenge: challenge)
        }
        if intent == "signin" { return .refused(AuthError.unknownForSignIn) }
        guard request.createUser ?? true else { return .refused(AuthError.otpSignupDisabled) }
        guard !settings.disableSignup else { return .refused(AuthError.signupDisabled) }
        return .newUser(email: email, challenge: challenge)
    }

    /// Latchkey's `intent`: none, `signin` or `signup`.
    static func intent(_ raw: String?) throws -> String? {
        guard raw == nil || raw == "signin" || raw == "signup" else { throw AuthError.validation("intent must be signin or signup") }
        return raw
    }

    /// `POST /resend`: a new confirmation code for an unconfirmed user (`signup`, `sms`), or the
    /// codes of a pending change (`email_change`, `phone_change`). Unknown or already confirmed
    /// addresses get the same answer.
    public func resend(_ request: ResendRequest, redirectTo: String?, client: ClientInfo) async throws -> OTPResponse {
        try await limiter.hit(codes.sendLimits(client))
        let types = "Missing one of these types: signup, email_change, sms, phone_change"
        guard let type = request.type else { throw AuthError.validation(types) }
        switch type {
        case "signup":
            let email = try EmailAddress.requestAddress(request.email)
            let challenge = try PKCEChallenge.parse(challenge: request.codeChallenge, method: request.codeChallengeMethod)
            if let user = try await store.user(email: email), !user.isEmailConfirmed {
                try await codes.send(to: user, kind: .confirmation, redirectTo: redirectTo, challenge: challenge)
            }
            return codes.info(sentTo: email)
        case "email_change":
            let email = try EmailAddress.requestAddress(request.email)
            let challenge = try PKCEChallenge.parse(challenge: request.codeChallenge, method: request.codeChallengeMethod)
            var user = try await store.user(email: email)
            if user?.newEmail == nil { user = try await store.users(newEmail: email).last }
            if let user, let newEmail = user.newEmail {
                _ = try await codes.requestEmailChange(user, to: newEmail, redirectTo: redirectTo, challenge: challenge)
            }
            return codes.info(sentTo: email)
        case "sms", "phone_change":
            return try await resendPhone(type: type, phone: request.phone)
        default:
            throw AuthError.validation(types)
        }
    }
}
