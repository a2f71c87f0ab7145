import Foundation
import LatchkeyAPI
import Logging

/// The parts the use cases share, made once from the configuration: the password rules and
/// hasher (``Passwords``), session answers, outbox rows and audit events on one clock and one
/// source of randomness (``Records``), the redirect allow list, the rate limiter, and the code
/// sender (``Codes``). The composition root (`makeUseCases`) hands each use case the parts it
/// uses; these also answer `GET /settings` and make the ``Authenticator``.
/// What the shared parts read and write: the account (answers, who requests are), rate-limit
/// counters, codes, and the development mailbox (texts when no SMS provider is configured).
public typealias SharedPartsStore = AccountReading & RateLimitStore & CodeStore & DevMailboxStore

public struct SharedParts: Sendable {
    public let configuration: AuthConfiguration
    /// New passwords checked and hashed; presented ones verified.
    public let passwords: Passwords
    /// Session answers, outbox rows and audit events, and the clock and randomness they use.
    public let records: Records
    public let redirects: RedirectPolicy
    public let limiter: RateLimiter
    /// Makes, stores and sends codes and links (email and SMS), and new users with their first code.
    public let codes: Codes
    /// Who requests are (the accounts it reads the session's user from).
    public let authenticator: Authenticator

    public init(
        configuration: AuthConfiguration, store: any SharedPartsStore, hasher: any PasswordHasher,
        issuer: any TokenIssuing, serverSecret: [UInt8], time: any TimeSource = SystemTimeSource(),
        random: any RandomSource = SystemRandomSource(), renderer: any MessageRenderer,
        blocklist: Set<String> = PasswordPolicy.bundledBlocklist(), outboxSignal: OutboxSignal = OutboxSignal(),
        sms: (any SMSSender)? = nil, metrics: AuthMetrics = .disabled, hooks: Hooks = .none,
        logger: Logger = Logger(label: "latchkey"), decoyHash: String
    ) {
        self.configuration = configuration
        self.passwords = Passwords(
            policy: PasswordPolicy(settings: configuration.password, blocklist: blocklist), hasher: hasher, decoyHash: decoyHash)
        self.redirects = RedirectPolicy(siteURL: configuration.siteURL, allowList: configuration.uriAllowList)
        let composer = EmailComposer(
            appName: configuration.appName, externalURL: configuration.externalURL, siteURL: configuration.siteURL,
            templates: renderer, validMinutes: max(1, configuration.otp.expiry / 60), forHook: hooks.isEnabled(.sendEmail))
        self.records = Records(
            issuer: issuer, serverSecret: serverSecret, jwt: configuration.jwt, externalURL: configuration.externalURL, accounts: store,
            composer: composer, signal: outboxSignal, time: time, random: random, hooks: hooks)
        self.limiter = RateLimiter(store: store, time: time, metrics: metrics)
        self.codes = Codes(
            store: store, settings: Codes.Settings(configuration), records: records, redirects: redirects, limiter: limiter,
            sms: hooks.isEnabled(.sendSMS) ? HookSMSSender(hooks: hooks) : sms ?? DevSMSOutbox(store: store, time: time, random: random),
            metrics: metrics, logger: logger)
        self.authenticator = Authenticator(answers: records.answers, accounts: store, time: time)
    }

    /// Makes the parts, with a decoy hash from the configured hasher.
    public static func make(
        configuration: AuthConfiguration, store: any SharedPartsStore, hasher: any PasswordHasher,
        issuer: any TokenIssuing, serverSecret: [UInt8], time: any TimeSource = SystemTimeSource(),
        random: any RandomSource = SystemRandomSource(), renderer: any MessageRenderer, outboxSignal: OutboxSignal = OutboxSignal(),
        sms: (any SMSSender)? = nil, metrics: AuthMetrics = .disabled, hooks: Hooks = .none,
        logger: Logger = Logger(label: "latchkey")
    ) async throws -> SharedParts {
        let decoy = try await hasher.decoyHash()
        return SharedParts(
            configuration: configuration, store: store, hasher: hasher, issuer: issuer, serverSecret: serverSecret, time: time,
            random: random, renderer: renderer, outboxSignal: outboxSignal, sms: sms, metrics: metrics, hooks: hooks, logger: logger,
            decoyHash: decoy)
    }

    /// `GET /settings`.
    public var settings: ServerSettings {
        ServerSettings(
            external: configuration.external.reported.merging(
                ["email": true, "phone": configuration.sms.enabled, "anonymous_users": configuration.anonymousUsers]
            ) { _, own in own },
            disableSignup: configuration.disableSignup, mailerAutoconfirm: configuration.mailerAutoconfirm,
            phoneAutoconfirm: configuration.sms.autoconfirm, smsProvider: codes.sms.providerName, samlEnabled: false,
            passkeysEnabled: configuration.passkeys.enabled)
    }

    /// Builds session records and the session answers (access token, refresh token, user).
    public var answers: SessionAnswers { records.answers }
    /// Builds sealed outbox rows (messages carry codes and links) and wakes their delivery.
    public var notices: Notices { records.notices }
    /// The clock.
    public var time: any TimeSource { records.time }
    /// New ids and random bytes (refresh salts); seeded in tests.
    public var random: any RandomSource { records.random }
    /// Signs access tokens and publishes their keys.
    public var issuer: any TokenIssuing { answers.issuer }
    /// Seals queued messages; they carry codes and links.
    public var sealer: OutboxSealer { notices.sealer }
}
