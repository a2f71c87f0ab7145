import Foundation
import LatchkeyAPI

/// `POST /token?grant_type=password`, by email or phone.
///
/// Unknown account, password-less user and wrong password answer alike, after the same amount
/// of hashing. Failures count per account; past the limit the account answers 429 until the
/// window ends, whichever IP the attempts come from. The decision (confirmed, not banned, the
/// password still the one checked) is made again on a fresh copy when another request wrote the
/// user in between.
public struct PasswordSignIn: Sendable {
    /// What the grant is configured with.
    public struct Settings: Sendable {
        /// `/token` requests per client IP.
        public var tokenPerIP: RateLimit
        /// Failed sign-ins per account before it answers 429.
        public var failuresPerAccount: RateLimit
        /// Email sign-ins need no confirmed address (`GOTRUE_MAILER_AUTOCONFIRM`).
        public var mailerAutoconfirm: Bool
        /// Whether phone sign-ins are on (`GOTRUE_EXTERNAL_PHONE_ENABLED`).
        public var phoneEnabled: Bool
        /// Phone sign-ins need no confirmed number (`GOTRUE_SMS_AUTOCONFIRM`).
        public var smsAutoconfirm: Bool

        public init(
            tokenPerIP: RateLimit, failuresPerAccount: RateLimit, mailerAutoconfirm: Bool, phoneEnabled: Bool, smsAutoconfirm: Bool
        ) {
            self.tokenPerIP = tokenPerIP
            self.failuresPerAccount = failuresPerAccount
            self.mailerAutoconfirm = mailerAutoconfirm
            self.phoneEnabled = phoneEnabled
            self.smsAutoconfirm = smsAutoconfirm
        }

        /// The settings of `configuration`.
        public init(_ configuration: AuthConfiguration) {
            self.init(
                tokenPerIP: configuration.rateLimits.tokenPerIP, failuresPerAccount: configuration.rateLimits.signInFailuresPerAccount,
                mailerAutoconfirm: configuration.mailerAutoconfirm, phoneEnabled: configuration.sms.enabled,
                smsAutoconfirm: configuration.sms.autoconfirm)
        }
    }

    /// Whose password is presented: how it is named, found and counted, and what confirmed means.
    struct Account {
        /// The address or `+number`, for the audit log.
        var name: String
        var failureKey: String
        var lookup: () async throws -> UserRecord?
        var confirmed: (UserRecord) -> Bool
        var unconfirmed: AuthError
    }

    let store: any PasswordSignInStore
    let passwords: Passwords
    let limiter: RateLimiter
    let settings: Settings
    let answers: SessionAnswers
    let time: any TimeSource

    public init(
        store: any PasswordSignInStore, passwords: Passwords, limiter: RateLimiter, settings: Settings, answers: SessionAnswers,
        time: any TimeSource
    ) {
        self.store = store
        self.passwords = passwords
        self.limiter = limiter
        self.settings = settings
        self.answers = answers
        self.time = time
    }

    var events: AuditEvents { AuditEvents(time: time, random: answers.random) }

    /// Signs in with the request's email (or, without one, its phone) and password.
    public func signIn(_ request: PasswordGrantRequest, client: ClientInfo) async throws -> Session {
        try await limiter.hit([.tokenRequests(from: client, settings.tokenPerIP)])
        guard let password = request.password, !password.isEmpty else { throw AuthError.invalidCredentials }
        let account: Account
        if request.email == nil, let raw = request.phone {
            // With phone sign-ins off, or a number the phone rules refuse, the number names nobody:
            // the same answer as a wrong password.
            guard settings.phoneEnabled, let phone = PhoneNumber.canonical(raw) else { throw AuthError.invalidCredentials }
            account = Account(
                name: "+" + phone, failureKey: "signin:fail:phone:\(phone)", lookup: { try await store.user(phone: phone) },
                confirmed: { [settings] in $0.phoneConfirmedAt != nil || settings.smsAutoconfirm }, unconfirmed: .phoneNotConfirmed)
        } else {
            guard let raw = request.email, !raw.isEmpty, let email = EmailAddress.canonical(raw) else {
                throw AuthError.invalidCredentials
            }
            account = Account(
                name: email, failureKey: "signin:fail:\(email)", lookup: { try await store.user(email: email) },
                confirmed: { [settings] in $0.isEmailConfirmed || settings.mailerAutoconfirm }, unconfirmed: .emailNotConfirmed)
        }
        guard !passwords.isTooLong(password) else { throw AuthError.invalidCredentials }
        return try await signIn(account, password: password, client: client)
    }

    /// The per-account failure limit, the same hashing for unknown accounts, then confirmation
    /// and ban checks on a fresh copy, and the session.
    func signIn(_ account: Account, password: String, client: ClientInfo) async throws -> Session {
        let failureLimit = settings.failuresPerAccount
        // The attempt counts as a failure before the hash is checked, so a burst of concurrent
        // guesses cannot all pass the limit; a right password takes it back.
        let reservation = try await limiter.reserve(account.failureKey, failureLimit)
        let user = try await account.lookup()
        // Verified before `user` is looked at: an unknown account costs what a known one does.
        let matched = try await passwords.verify(password, against: user?.passwordHash)
        // The operator's hook sees every check of a known user's password, and may refuse it
        // (the attempt then counts as a failure, whatever the password). An unknown account takes
        // as long as the hook has been taking.
        if user == nil { await answers.hooks.passwordAttemptOfUnknownAccount() }
        if let user, case .reject(let message, let signOut) = try await answers.hooks.passwordAttempt(userID: user.id, valid: matched) {
            if signOut { try await answers.hooks.signOut(userID: user.id) }
            try await store.appendAudit([
                events.event(.loginFailed, user: user, details: ["method": "password", "reason": "hook_rejected"], client: client)
            ])
            throw AuthError(.invalidCredentials, message)
        }
        guard let user, matched else {
            var refusals = [
                events.event(
                    .loginFailed, userID: user?.id, name: account.name,
                    details: ["method": "password", "reason": user == nil ? "unknown_user" : "invalid_credentials"], client: client)
            ]
            if reservation.count == failureLimit.count {
                refusals.append(events.event(.lockout, userID: user?.id, name: account.name, details: ["kind": "password"], client: client))
            }
            try await store.appendAudit(refusals)
            throw AuthError.invalidCredentials
        }
        try await limiter.release(reservation)
        let now = time.now()
        let upgraded = try await passwords.upgrade(password, from: user.passwordHash)
        return try await store.onFreshCopies(of: user) { fresh in
            // A password changed since it was checked, or an address moved away, refuses as a
            // wrong password would.
            guard fresh.passwordHash == user.passwordHash, fresh.email == user.email, fresh.phone == user.phone else {
                throw AuthError.invalidCredentials
            }
            let refusal: AuthError? =
                !account.confirmed(fresh) ? account.unconfirmed : fresh.isBanned(at: now) ? AuthError.userBanned : nil
            if let refusal {
                try await store.appendAudit([
                    events.event(
                        .loginFailed, user: fresh, details: ["method": "password", "reason": .string(refusal.code.rawValue)], client: client
                    )
                ])
                throw refusal
            }
            var signedIn = fresh
            signedIn.lastSignInAt = now
            signedIn.updatedAt = now
            if let upgraded { signedIn.passwordHash = upgraded }
            let session = answers.newSession(for: signedIn, method: "password", client: client, now: now)
            try await store.createSession(
                session, user: signedIn, audit: [events.event(.login, user: signedIn, details: ["method": "password"], client: client)])
            return try await answers.answer(user: signedIn, session: session, weakPassword: passwords.weakness(of: password))
        }
    }
}
