import Foundation
import LatchkeyAPI
import Logging

/// Issuing and sending one-time codes and links: the shared piece of every use case that sends
/// one (`/otp`, `/magiclink`, `/recover`, `/resend`, `/reauthenticate`, sign-up, invitations,
/// email and phone changes).
///
/// A code is made fresh (digits and a link secret from the injected randomness, stored only as
/// hashes), replaces the user's outstanding code of its kind, and is queued in the transaction
/// that stores it; sends are held to the resend cooldown (decided again on a fresh copy of the
/// user, so a concurrent send counts) and to the per-address and total email budgets.
public struct Codes: Sendable {
    /// What sending is configured with.
    public struct Settings: Sendable {
        public var otp: OTPSettings
        public var sms: SMSSettings
        public var rateLimits: RateLimitSettings
        /// Sign-ups need no confirmation, and send nothing that counts against email budgets.
        public var mailerAutoconfirm: Bool
        /// An email change is confirmed from the current address too.
        public var secureEmailChange: Bool
        /// The `aud` of new users.
        public var audience: String

        public init(
            otp: OTPSettings, sms: SMSSettings, rateLimits: RateLimitSettings, mailerAutoconfirm: Bool, secureEmailChange: Bool,
            audience: String
        ) {
            self.otp = otp
            self.sms = sms
            self.rateLimits = rateLimits
            self.mailerAutoconfirm = mailerAutoconfirm
            self.secureEmailChange = secureEmailChange
            self.audience = audience
        }

        /// The settings of `configuration`.
        public init(_ configuration: AuthConfiguration) {
            self.init(
                otp: configuration.otp, sms: configuration.sms, rateLimits: configuration.rateLimits,
                mailerAutoconfirm: configuration.mailerAutoconfirm, secureEmailChange: configuration.secureEmailChange,
                audience: configuration.jwt.audience)
        }
    }

    /// A freshly made code, its link secret and the record that stores them hashed.
    public struct Issued: Sendable {
        public var code: String
        public var linkSecret: String
        public var record: OneTimeTokenRecord
    }

    let store: any CodeStore
    public let settings: Settings
    let records: Records
    /// Where links may send the user.
    public let redirects: RedirectPolicy
    let limiter: RateLimiter
    /// Sends SMS codes.
    public let sms: any SMSSender
    /// Where an SMS the provider refused is counted.
    let metrics: AuthMetrics
    let logger: Logger

    public init(
        store: any CodeStore, settings: Settings, records: Records, redirects: RedirectPolicy, limiter: RateLimiter, sms: any SMSSender,
        metrics: AuthMetrics = .disabled, logger: Logger
    ) {
        self.store = store
        self.settings = settings
        self.records = records
        self.redirects = redirects
        self.limiter = limiter
        self.sms = sms
        self.metrics = metrics
        self.logger = logger
    }

    var time: any TimeSource { records.time }
    var events: AuditEvents { records.events }

    /// Makes a code of `kind` for `user`, sent to `address`, valid for the configured time.
    public func make(
        for user: UserRecord, kind: OneTimeTokenKind, address: String, redirectTo: String?, challenge: PKCEChallenge?, now: Date
    ) -> Issued {
        let code = records.random.digits(settings.otp.length)
        let secret = records.random.linkSecret()
        let record = OneTimeTokenRecord(
            id: records.random.orderedUUID(at: now), userID: user.id, kind: kind, relatesTo: address,
            codeHash: OneTimeSecrets.codeHash(code, userID: user.id), linkHash: OneTimeSecrets.linkHash(secret),
            redirectTo: redirectTo, challenge: challenge, createdAt: now, expiresAt: now.addingTimeInterval(Double(settings.otp.expiry)))
        return Issued(code: code, linkSecret: secret, record: record)
    }

    /// The email that carries `issued` to `user`.
    public func message(for issued: Issued, user: UserRecord, redirectTo: String) -> EmailMessage {
        let kind: MessageKind =
            switch issued.record.kind {
            case .confirmation: .confirmation
            case .magiclink: .magicLink
            case .recovery: .recovery
            case .emailChangeCurrent: .emailChangeCurrent
            case .emailChangeNew: .emailChange
            case .reauthentication: .reauthentication
            case .invite: .invite
            case .sms, .phoneChange: .sms
            }
        return records.notices.composer.email(
            kind, to: issued.record.relatesTo, user: user, code: issued.code, linkSecret: issued.linkSecret, redirectTo: redirectTo)
    }

    /// Replaces the user's code of `kind` (`confirmation`, `recovery` or `magiclink`) with a new
    /// one and emails it, after the cooldown and the email budgets allow it.
    public func send(to user: UserRecord, kind: OneTimeTokenKind, redirectTo: String?, challenge: PKCEChallenge? = nil) async throws {
        guard let address = user.email else { throw AuthError.emailRequired }
        let now = time.now()
        let lastSent = { (user: UserRecord) in kind == .confirmation ? user.confirmationSentAt : user.recoverySentAt }
        try checkCooldown(lastSent: lastSent(user), now: now)
        try await countEmail(to: address)
        let resolved = redirects.resolve(redirectTo)
        try await store.onFreshCopies(of: user) { user in
            // A code sent by a concurrent request in between counts against the cooldown.
            try checkCooldown(lastSent: lastSent(user), now: now)
            guard user.email == address else { throw AuthError.emailRequired }
            let issued = make(for: user, kind: kind, address: address, redirectTo: resolved, challenge: challenge, now: now)
            var updated = user
            if kind == .confirmation { updated.confirmationSentAt = now } else { updated.recoverySentAt = now }
            updated.updatedAt = now
            try await store.replaceOneTimeTokens(
                [issued.record], user: updated,
                outbox: try records.notices.rows([message(for: issued, user: updated, redirectTo: resolved)]),
                audit: sentEvents([issued.record], user: updated))
        }
        records.notices.notify()
    }

    /// One `code_sent` event per token: its kind, never the code.
    public func sentEvents(_ tokens: [OneTimeTokenRecord], user: UserRecord) -> [AuditEvent] {
        tokens.map { events.event(.codeSent, user: user, details: ["kind": .string($0.kind.rawValue)]) }
    }

    /// Throws the resend cooldown error when the last message went out too recently.
    public func checkCooldown(
        lastSent: Date?, now: Date, frequency: Int? = nil, error: (Int) -> AuthError = AuthError.sendCooldown(seconds:)
    ) throws {
        let frequency = frequency ?? settings.otp.sendFrequency
        guard frequency > 0, let lastSent else { return }
        let elapsed = now.timeIntervalSince(lastSent)
        if elapsed < Double(frequency) { throw error(Int((Double(frequency) - elapsed).rounded(.up))) }
    }

    /// The client's budgets for requests that may send a code or a link: GoTrue's per 5 minutes
    /// and Latchkey's per hour.
    public func sendLimits(_ client: ClientInfo) -> [RateLimiter.Limit] {
        [
            RateLimiter.Limit("ip:otp:\(client.limitKey)", settings.rateLimits.otpPerIP),
            RateLimiter.Limit("ip:otp-hour:\(client.limitKey)", settings.rateLimits.otpPerIPHourly),
        ]
    }

    /// The per-address and total email budgets one email to `address` counts against (none when
    /// sign-ups need no confirmation).
    public func emailLimits(to address: String) -> [RateLimiter.Limit] {
        if settings.mailerAutoconfirm { return [] }
        return [
            RateLimiter.Limit("email:addr:\(address)", settings.rateLimits.emailPerAddress, refusal: AuthError.emailRateLimited),
            RateLimiter.Limit("email:all", settings.rateLimits.emailSent, refusal: AuthError.emailRateLimited),
        ]
    }

    /// Counts one email to `address` against the per-address and total budgets.
    public func countEmail(to address: String) async throws {
        try await limiter.hit(emailLimits(to: address))
    }

    /// Where a code went and the rules it follows.
    public func info(sentTo address: String) -> OTPResponse {
        OTPResponse(
            channel: "email", sentTo: EmailAddress.masked(address), codeLength: settings.otp.length, expiresIn: settings.otp.expiry,
            resendAfter: settings.otp.sendFrequency, maxAttempts: AttemptCap.told(settings.otp.maxAttempts))
    }
}
