import AsyncHTTPClient
import Foundation
import LatchkeyCore
import LatchkeyDelivery
import LatchkeyJWT
import LatchkeyProviders
import LatchkeyStore
import LatchkeyWallets
import Logging
import NIOPosix
import ServiceLifecycle
import Tracing

/// Every use case of the server and the parts they share, made once by ``makeUseCases(configuration:observability:time:logger:)``
/// over one store: what `buildApplication` routes requests to, what each `latchkey` command
/// calls (without building the HTTP application), and what tests drive. The use cases come in
/// five groups of at most eight (issue #38: no type holds more than eight dependencies,
/// `scripts/spine-check`): signing in, the signed-in user's account, the operator's, the browser
/// flows', and what runs beside them.
public struct UseCases: Sendable {
    /// The store, for what reads it directly (the dev mailbox, metrics, tests).
    public let store: SQLAuthStore
    /// The parts the use cases share (passwords, records, the limiter, codes, redirects, the authenticator).
    public let parts: SharedParts
    /// Signs access tokens and publishes their keys.
    public let issuer: any TokenIssuing
    /// Where the server secret came from (the start-up banner says it).
    public let serverSecretOrigin: String
    /// The grants of `/token`, codes and `/verify`.
    public let signIn: SignInUseCases
    /// What a signed-in user does with their account.
    public let account: AccountUseCases
    /// What the operator does (`/admin/…`, `latchkey …`).
    public let admin: AdminUseCases
    /// The redirect flows of browsers: providers, hand-offs, captcha, the pages' cookies.
    public let browser: BrowserUseCases
    /// What runs beside the requests: the outbox's delivery, the database's health, the shutdown.
    public let runtime: Runtime

    /// The clock.
    public var time: any TimeSource { parts.records.time }
    /// Who requests are.
    public var authenticator: Authenticator { parts.authenticator }

    /// Closes what the use cases hold (the database, the hashing threads, the outbound client).
    public func shutdown() async throws { try await runtime.shutdown() }
}

/// The ways in: the grants of `/token`, one-time codes and `/verify`.
public struct SignInUseCases: Sendable {
    public let password: PasswordSignIn
    public let refresh: SessionRefresh
    public let deviceKey: DeviceKeySignIn
    /// Identities others vouch for: providers' id tokens and wallets' signatures.
    public let external: ExternalSignIns
    public let authCode: AuthCodeExchange
    /// Anonymous sign-ups and the deletion of stale anonymous users.
    public let anonymous: AnonymousUsers
    public let codes: OneTimeCodes
    /// `/verify`: codes and links.
    public let verification: Verification
}

/// Sign-ins with an identity another party proves: a provider's id token, a wallet's signature.
public struct ExternalSignIns: Sendable {
    public let idToken: IDTokenSignIn
    public let web3: Web3SignIn
}

/// What a user does with their account once signed in (and signing up).
public struct AccountUseCases: Sendable {
    public let user: UserAccount
    public let signUp: SignUp
    public let identityLinks: IdentityLinks
    public let passkeys: Passkeys
    public let deviceKeys: DeviceKeys
    public let keyVaults: KeyVaults
    public let signerBackups: SignerBackups
    public let mfa: MFA
}

/// The operator's use cases.
public struct AdminUseCases: Sendable {
    /// The operator's user endpoints (`/admin/users…`, `latchkey users`).
    public let users: AdminUsers
    /// An operator's invitations and generated links (`POST /invite`, `/admin/generate_link`, `latchkey users invite|link`).
    public let invitations: Invitations
    /// Custom OpenID providers (`latchkey providers`).
    public let customProviders: CustomProviders
    public let audit: AuditLog
    /// The token signing keys (`latchkey keys`).
    public let signingKeys: SigningKeys
    /// Webhook endpoints and their deliveries (`/admin/webhooks`, `latchkey webhooks`).
    public let webhooks: WebhookEndpoints
    /// The OAuth 2.1 server's clients (`/admin/oauth/clients`, `/oauth/clients/register`).
    public let oauthClients: OAuthClients
}

/// What the browser's redirect flows use.
public struct BrowserUseCases: Sendable {
    /// The redirect flows of OAuth providers.
    public let oauthRedirects: OAuthRedirects
    /// Providers' refresh tokens kept to revoke them with the account.
    public let providerGrants: ProviderGrants
    public let handOff: SessionHandOff
    public let captcha: CaptchaGate
    /// Signs and checks the hosted pages' and the admin console's cookies and forms.
    let pageSecurity: PageSecurity
    /// The OAuth 2.1 / OpenID Connect server's flow (`/oauth/authorize`, `/oauth/token`…).
    public let oauthServer: OAuthServer
}

/// What runs beside the requests.
public struct Runtime: Sendable {
    /// Sends what the outbox holds; tests call it to deliver without waiting for the service.
    public let delivery: OutboxDelivery
    /// Wakes the delivery when a transaction queued a message.
    public let outboxSignal: OutboxSignal
    /// Whether the database answers (`/health`).
    public let databaseAnswers: @Sendable () async -> Bool
    /// Closes the database, the hashing threads and the outbound client.
    let shutdown: @Sendable () async throws -> Void
}

extension UseCases {
    /// Delivers every queued message now and waits until none is pending (one the background
    /// service is sending counts as pending), at most `timeout`. For tests and tools that read
    /// what was sent. It returns as soon as nothing is pending; the 30 s bound is for a machine
    /// under the whole PostgreSQL suite's load, where delivery once took longer than 10 s.
    public func settleOutbox(timeout: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while ContinuousClock.now < deadline {
            try await runtime.delivery.deliverDue()
            if try await store.pendingOutbox(limit: 1).allSatisfy({ $0.nextAttemptAt > runtime.delivery.time.now() }) { return }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}

/// What the operator watches, made once and shared by the store (timed transactions) and the
/// HTTP application (request metrics and spans): metrics when `LATCHKEY_METRICS*` asks, the
/// OpenTelemetry tracer and its exporter when `OTEL_*` does. The CLI's commands use ``none``.
public struct Observability: Sendable {
    public let metrics: ServerMetrics?
    public let tracer: (any Tracer)?
    /// The exporter of spans, run with the application.
    let tracingService: (any Service)?

    /// Nothing observed (the CLI's commands).
    public static let none = Observability(metrics: nil, tracer: nil, tracingService: nil)

    /// What `configuration` asks for.
    public init(_ configuration: ServerConfiguration) throws {
        let tracing = try tracingBackend(configuration)
        self.init(
            metrics: configuration.metrics.enabled ? ServerMetrics() : nil, tracer: tracing?.tracer, tracingService: tracing?.service)
    }

    init(metrics: ServerMetrics?, tracer: (any Tracer)?, tracingService: (any Service)?) {
        self.metrics = metrics
        self.tracer = tracer
        self.tracingService = tracingService
    }
}

/// The composition root of the use cases: opens the database (migrated, its server secret
/// checked), makes the shared parts and every use case over one store. Nothing of HTTP: the CLI
/// calls it alone, `latchkey serve` and the tests hand the result to `buildApplication`.
///
/// - Parameters:
///   - time: the clock; tests pass a manual one.
public func makeUseCases(
    configuration: ServerConfiguration, observability: Observability = .none, time: any TimeSource = SystemTimeSource(),
    logger: Logger = Logger(label: "latchkey")
) async throws -> UseCases {
    let database = try await openDatabase(configuration, logger: logger)
    let pool = NIOThreadPool(numberOfThreads: max(1, configuration.hashingThreads))
    pool.start()
    // Hooks, webhooks, providers and captcha are asked with it.
    let outbound = OutboundHTTP.makeClient()
    // Whatever fails from here on (a damaged key, an unreadable CA file) must not leave the
    // database open or the hashing threads running.
    do {
        try await SQLAuthStore(database: database).migrate()
        let secretSource = try ServerSecretSource.resolve(configuration)
        try await checkServerSecret(secretSource, store: SQLAuthStore(database: database))
        return try await composeUseCases(
            configuration: configuration, database: database, serverSecret: secretSource, observability: observability, pool: pool,
            outbound: outbound, time: time, logger: logger)
    } catch {
        try? await database.close()
        try? await pool.shutdownGracefully()
        try? await outbound.shutdown()
        throw error
    }
}

/// The use cases over an open, migrated database.
private func composeUseCases(
    configuration: ServerConfiguration, database: any SQLDatabase, serverSecret source: ServerSecretSource,
    observability: Observability, pool: NIOThreadPool, outbound: HTTPClient, time: any TimeSource, logger: Logger
) async throws -> UseCases {
    let serverSecret = source.bytes
    let auth = configuration.auth
    let counted = observability.metrics?.auth ?? .disabled
    let mailHook = configuration.hooks.endpoints[.sendEmail] != nil
    // With no mail transport, mail is filed in the dev mailbox by the transaction that queues it.
    let observed =
        observability.metrics == nil && observability.tracer == nil
        ? database : ObservedDatabase(database, metrics: counted, tracer: observability.tracer)
    let store = SQLAuthStore(
        database: observed,
        devMailboxSealer: configuration.smtp == nil && !mailHook ? OutboxSealer(serverSecret: serverSecret) : nil)
    let hooks = operatorHooks(configuration, store: store, client: outbound, time: time, logger: logger)
    var material = TokenKeyMaterial(jwks: configuration.jwtKeys, hmacSecret: configuration.jwtSecret)
    if !material.isConfigured {
        material.stored = try await DataFolder(path: configuration.dataDirectory).storedSigningKeys(
            store: store, serverSecret: serverSecret, now: time.now())
    }
    let issuer = try await TokenIssuer.make(from: material, time: time, retention: TimeInterval(auth.jwt.expiry + 60))
    let hasher = ScryptPasswordHasher(
        logN: auth.password.scryptLogN, r: auth.password.scryptR, p: auth.password.scryptP, pool: pool, metrics: counted)
    let signal = OutboxSignal()
    let parts = try await SharedParts.make(
        configuration: auth, store: store, hasher: hasher, issuer: issuer, serverSecret: serverSecret, time: time,
        renderer: configuration.templates, outboxSignal: signal, sms: smsSender(configuration), metrics: counted, hooks: hooks,
        logger: logger)
    let random = parts.records.random
    let mailer: any Mailer =
        mailHook
        ? HookMailer(hooks: hooks)
        : try configuration.smtp.map { try SMTPMailer(configuration: $0) } ?? DevMailbox(store: store, time: time)
    let webhooks = WebhookEndpoints(store: store, serverSecret: serverSecret, time: time, random: random)
    let delivery = OutboxDelivery(
        store: store, mailer: mailer, sealer: parts.sealer, time: time, retry: configuration.mailRetry,
        metrics: counted,
        webhooks: HTTPWebhookSender(endpoints: webhooks, client: outbound, time: time, policy: configuration.outbound),
        tracer: observability.tracer, logger: logger)

    let fetcher = HTTPDocumentFetcher(client: outbound, policy: configuration.outbound)
    let customProviders = CustomProviders(
        store: store, serverSecret: serverSecret, externalURL: auth.externalURL, time: time, random: random)
    let providerClient = HTTPOAuthProviderClient(fetcher: fetcher, client: outbound, time: time, policy: configuration.outbound)
    let configuredProviders = IDTokenSignIn.Settings(auth).providers
    let grants = ProviderGrants(
        store: store, client: providerClient, serverSecret: serverSecret,
        lookup: { name in configuredProviders.first { $0.name == name } }, time: time, logger: logger)
    let idTokenSignIn = IDTokenSignIn(
        store: store, tokens: OpenIDTokenReader(keys: OpenIDKeyCache(fetcher: fetcher, time: time, ttl: auth.external.keyCacheTTL)),
        limiter: parts.limiter, settings: IDTokenSignIn.Settings(auth), records: parts.records, logger: logger,
        directory: customProviders, grants: grants)
    let oauthRedirects = OAuthRedirects(
        signIn: idTokenSignIn, client: providerClient, limits: store, serverSecret: serverSecret, redirects: parts.redirects,
        lifetime: TimeInterval(auth.flowStateExpiry), externalURL: auth.externalURL)
    let captcha = CaptchaGate(
        verifier: configuration.captcha.map {
            HTTPCaptchaVerifier(settings: $0, client: outbound, policy: configuration.outbound, logger: logger)
        })
    let shutdown: @Sendable () async throws -> Void = {
        try await database.close()
        try await pool.shutdownGracefully()
        try await outbound.shutdown()
    }
    let refresh = SessionRefresh(
        store: store, limiter: parts.limiter, settings: SessionRefresh.Settings(auth), answers: parts.records.answers, time: time,
        logger: logger)
    let oauthClients = OAuthClients(store: store, limiter: parts.limiter, settings: auth.oauthServer, time: time, random: random)
    return UseCases(
        store: store, parts: parts, issuer: issuer, serverSecretOrigin: source.origin,
        signIn: SignInUseCases(
            password: PasswordSignIn(
                store: store, passwords: parts.passwords, limiter: parts.limiter, settings: PasswordSignIn.Settings(auth),
                answers: parts.records.answers, time: time),
            refresh: refresh,
            deviceKey: DeviceKeySignIn(
                store: store, assertions: JWTAssertionReader(), limiter: parts.limiter, settings: DeviceKeySignIn.Settings(auth),
                answers: parts.records.answers, time: time),
            external: ExternalSignIns(
                idToken: idTokenSignIn,
                web3: Web3SignIn(
                    accounts: idTokenSignIn, spent: store, recovering: Secp256k1Recovery(), redirects: parts.redirects,
                    limiter: parts.limiter, settings: auth.web3, time: time)),
            authCode: AuthCodeExchange(
                store: store, limiter: parts.limiter, tokenPerIP: auth.rateLimits.tokenPerIP, records: parts.records),
            anonymous: AnonymousUsers(
                store: store, limiter: parts.limiter, settings: AnonymousUsers.Settings(auth), records: parts.records),
            codes: OneTimeCodes(store: store, codes: parts.codes, limiter: parts.limiter, settings: OneTimeCodes.Settings(auth)),
            verification: Verification(
                store: store, limiter: parts.limiter, settings: Verification.Settings(auth), records: parts.records,
                redirects: parts.redirects)),
        account: AccountUseCases(
            user: UserAccount(
                store: store, passwords: parts.passwords, codes: parts.codes, records: parts.records, limiter: parts.limiter,
                settings: UserAccount.Settings(auth), grants: grants),
            signUp: SignUp(
                store: store, passwords: parts.passwords, codes: parts.codes, records: parts.records, limiter: parts.limiter,
                settings: SignUp.Settings(auth)),
            identityLinks: IdentityLinks(store: store, flows: oauthRedirects, enabled: auth.external.manualLinking, records: parts.records),
            passkeys: Passkeys(store: store, limiter: parts.limiter, settings: auth.passkeys, records: parts.records),
            deviceKeys: DeviceKeys(store: store, gate: SecondFactorGate(factors: store), time: time, random: random),
            keyVaults: KeyVaults(
                store: store, serverSecret: serverSecret, gate: SecondFactorGate(factors: store), limiter: parts.limiter,
                unlockLimit: auth.rateLimits.verifyPerIP, time: time, random: random),
            signerBackups: SignerBackups(
                store: store, serverSecret: serverSecret, gate: SecondFactorGate(factors: store), time: time, random: random),
            mfa: MFA(
                store: store, serverSecret: serverSecret, limiter: parts.limiter, settings: MFA.Settings(auth), records: parts.records,
                sms: parts.codes.sms)),
        admin: AdminUseCases(
            users: AdminUsers(
                store: store, passwords: parts.passwords, codes: parts.codes, records: parts.records, settings: AdminUsers.Settings(auth),
                grants: grants),
            invitations: Invitations(
                store: store, passwords: parts.passwords, codes: parts.codes, records: parts.records,
                userMetadataMaxBytes: auth.userMetadataMaxBytes),
            customProviders: customProviders, audit: AuditLog(store: store),
            signingKeys: SigningKeys(
                store: store, issuer: issuer, serverSecret: serverSecret, settings: SigningKeys.Settings(auth), time: time, random: random),
            webhooks: webhooks,
            oauthClients: oauthClients),
        browser: BrowserUseCases(
            oauthRedirects: oauthRedirects, providerGrants: grants,
            handOff: SessionHandOff(store: store, records: parts.records, lifetime: TimeInterval(auth.flowStateExpiry)),
            captcha: captcha, pageSecurity: PageSecurity(serverSecret: serverSecret, externalURL: auth.externalURL),
            oauthServer: OAuthServer(
                clients: oauthClients, store: store, refresh: refresh, answers: parts.records.answers, limiter: parts.limiter,
                redirects: parts.redirects, settings: auth.oauthFlow)),
        runtime: Runtime(delivery: delivery, outboxSignal: signal, databaseAnswers: { await database.ping() }, shutdown: shutdown))
}
