import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import LatchkeyCore
import LatchkeyDelivery
import LatchkeyJWT
import LatchkeyProviders
import LatchkeyStore
import Logging
import NIOPosix
import OTel
import ServiceLifecycle
import Tracing

/// What `buildApplication` assembled, for the CLI and tests.
public struct LatchkeyApp: Sendable {
    public let application: Application<RouterResponder<APIRequestContext>>
    public let service: AuthService
    /// The token signing keys (`latchkey keys`).
    public let signingKeys: SigningKeys
    /// Anonymous sign-ups and the deletion of stale anonymous users.
    public let anonymousUsers: AnonymousUsers
    /// `/verify`: codes and links.
    public let verification: Verification
    /// The operator's user endpoints (`/admin/users…`, `latchkey users`).
    public let adminUsers: AdminUsers
    /// An operator's invitations and generated links (`POST /invite`, `/admin/generate_link`, `latchkey users invite|link`).
    public let invitations: Invitations
    /// Custom OpenID providers (`latchkey providers`).
    public let customProviders: CustomProviders
    public let store: SQLAuthStore
    /// Webhook endpoints and their deliveries (`/admin/webhooks`, `latchkey webhooks`).
    public let webhooks: WebhookEndpoints
    /// Sends what the outbox holds; tests call it to deliver without waiting for the service.
    public let delivery: OutboxDelivery
    public let routes: RouteCatalog
    /// Where the server secret came from (the start-up banner says it).
    public var serverSecretOrigin = ""
    /// Shuts down what the application does not own (the database, the hashing threads).
    public let shutdown: @Sendable () async throws -> Void
}

extension LatchkeyApp {
    /// Delivers every queued message now and waits until none is pending (one the background
    /// service is sending counts as pending), at most `timeout`. For tests and tools that read
    /// what was sent. It returns as soon as nothing is pending; the 30 s bound is for a machine
    /// under the whole PostgreSQL suite's load, where delivery once took longer than 10 s.
    public func settleOutbox(timeout: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while ContinuousClock.now < deadline {
            try await delivery.deliverDue()
            if try await store.pendingOutbox(limit: 1).allSatisfy({ $0.nextAttemptAt > delivery.time.now() }) { return }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}

/// The OpenTelemetry tracer and its exporting service, when traces are on (`OTEL_*`): OTLP over
/// HTTP, the `OTEL_*` variables applied over these defaults. An instance tracer, not the global
/// one: tests start many servers in one process.
func tracingBackend(_ configuration: ServerConfiguration) throws -> (tracer: any Tracer, service: any Service)? {
    guard configuration.tracing else { return nil }
    var otel = OTel.Configuration.default
    otel.serviceName = "latchkey"
    otel.metrics.enabled = false
    otel.logs.enabled = false
    otel.traces.enabled = true
    otel.traces.exporter = .otlp
    otel.traces.otlpExporter.protocol = .httpProtobuf
    let backend = try OTel.makeTracingBackend(configuration: otel)
    return (backend.factory, backend.service)
}

/// The operator's hooks over HTTP, when any is on.
func operatorHooks(
    _ configuration: ServerConfiguration, store: SQLAuthStore, client: HTTPClient, time: any TimeSource, logger: Logger
) -> Hooks {
    let settings = configuration.hooks
    guard !settings.endpoints.isEmpty else { return .none }
    let random = SystemRandomSource()
    let caller = HTTPHookCaller(
        endpoints: settings.endpoints, client: client, timeout: .seconds(settings.timeout), time: time, random: random, logger: logger,
        policy: configuration.outbound)
    return Hooks(
        enabled: Set(settings.endpoints.keys), caller: caller, store: store, time: time, random: random,
        protectsClaims: settings.protectsClaims, operatorRoles: Set(configuration.auth.jwt.adminRoles))
}

/// The store's database: PostgreSQL when configured, else SQLite in the data folder.
public func openDatabase(_ configuration: ServerConfiguration, readers: Int = 2, logger: Logger) async throws -> any SQLDatabase {
    if let postgres = configuration.postgres { return try await PostgresDatabase.open(postgres, logger: logger) }
    return try await SQLiteDatabase.open(path: configuration.databasePath, readers: readers, logger: logger)
}

/// Refuses to start with a server secret other than the one the database was first started with
/// (recorded as a verifier, never the secret): refresh tokens and sealed secrets would not open,
/// and instances behind one load balancer would each refuse the others' refresh tokens.
func checkServerSecret(_ secret: ServerSecretSource, store: any AuthStore) async throws {
    let verifier = ServerSecret.verifier(secret.bytes)
    let recorded = try await store.claimServerSecretVerifier(verifier)
    guard ServerSecret.matches(recorded, verifier) else {
        throw ConfigurationError(
            "The server secret \(secret.origin) is not the one this database was started with: every instance on one database needs the same secret (set LATCHKEY_SERVER_SECRET or LATCHKEY_SERVER_SECRET_FILE on each, give each the same GOTRUE_JWT_SECRET and no server-secret file, or share the data folder's server-secret)"
        )
    }
}

/// The server secret and where it came from, in the order that decides: the configured one
/// (`LATCHKEY_SERVER_SECRET`, `LATCHKEY_SERVER_SECRET_FILE`), the data folder's `server-secret`
/// when there is one (an instance that made one keeps it), one derived from the HS256 JWT
/// secret (GoTrue's configuration: replicas with empty folders agree), else a new one in the folder.
public struct ServerSecretSource: Sendable {
    public let bytes: [UInt8]
    /// Where it came from, for the start-up banner and errors: "from LATCHKEY_SERVER_SECRET …".
    public let origin: String

    public static func resolve(_ configuration: ServerConfiguration) throws -> ServerSecretSource {
        if let secret = configuration.serverSecret {
            return .init(bytes: secret, origin: "from LATCHKEY_SERVER_SECRET (or LATCHKEY_SERVER_SECRET_FILE)")
        }
        let folder = DataFolder(path: configuration.dataDirectory)
        if let secret = try folder.existingServerSecret() {
            return .init(bytes: secret, origin: "from \(configuration.dataDirectory)/server-secret")
        }
        if let jwtSecret = configuration.jwtSecret {
            return .init(bytes: ServerSecret.derived(fromJWTSecret: jwtSecret), origin: "derived from the JWT secret (GOTRUE_JWT_SECRET)")
        }
        return .init(bytes: try folder.serverSecret(), origin: "from \(configuration.dataDirectory)/server-secret (new)")
    }
}

/// The SMS provider: Twilio when configured, one that fails every send when a provider was named
/// without its credentials, else `nil` (the dev mailbox).
func smsSender(_ configuration: ServerConfiguration) -> (any SMSSender)? {
    if let twilio = configuration.twilio { return TwilioSMSSender(configuration: twilio) }
    return configuration.unusableSMSProvider.map { UnavailableSMSSender(providerName: $0) }
}

extension ServerConfiguration {
    /// Which store this configuration uses, for logs: `SQLite at PATH` or `PostgreSQL at HOST/DB (schema auth)`.
    public var storeDescription: String {
        guard let postgres else { return "SQLite at \(databasePath)" }
        return "PostgreSQL at \(postgres.url.host ?? "?"):\(postgres.url.port ?? 5432)\(postgres.url.path) (schema \(postgres.schema))"
    }
}

/// The composition root: the CLI's `serve` and every test build the server here.
///
/// - Parameters:
///   - time: the clock; tests pass a manual one.
public func buildApplication(
    configuration: ServerConfiguration, time: any TimeSource = SystemTimeSource(), logger: Logger = Logger(label: "latchkey")
) async throws -> LatchkeyApp {
    let database = try await openDatabase(configuration, logger: logger)
    let pool = NIOThreadPool(numberOfThreads: max(1, configuration.hashingThreads))
    pool.start()
    // Hooks and webhooks are posted with it.
    let outbound = OutboundHTTP.makeClient()
    // Whatever fails from here on (a damaged key, an unreadable CA file) must not leave the
    // database open or the hashing threads running.
    do {
        try await SQLAuthStore(database: database).migrate()

        let folder = DataFolder(path: configuration.dataDirectory)
        let secretSource = try ServerSecretSource.resolve(configuration)
        let serverSecret = secretSource.bytes
        try await checkServerSecret(secretSource, store: SQLAuthStore(database: database))
        let metrics = configuration.metrics.enabled ? ServerMetrics() : nil
        let counted = metrics?.auth ?? .disabled
        let mailHook = configuration.hooks.endpoints[.sendEmail] != nil
        // With no mail transport, mail is filed in the dev mailbox by the transaction that queues it.
        let tracing = try tracingBackend(configuration)
        let store = SQLAuthStore(
            database: metrics == nil && tracing == nil ? database : ObservedDatabase(database, metrics: counted, tracer: tracing?.tracer),
            devMailboxSealer: configuration.smtp == nil && !mailHook ? OutboxSealer(serverSecret: serverSecret) : nil)
        let hooks = operatorHooks(configuration, store: store, client: outbound, time: time, logger: logger)
        var material = TokenKeyMaterial(jwks: configuration.jwtKeys, hmacSecret: configuration.jwtSecret)
        if !material.isConfigured {
            material.stored = try await folder.storedSigningKeys(store: store, serverSecret: serverSecret, now: time.now())
        }
        let issuer = try await TokenIssuer.make(
            from: material, time: time, retention: TimeInterval(configuration.auth.jwt.expiry + 60))
        let hasher = ScryptPasswordHasher(
            logN: configuration.auth.password.scryptLogN, r: configuration.auth.password.scryptR,
            p: configuration.auth.password.scryptP, pool: pool, metrics: counted)
        let signal = OutboxSignal()
        let service = try await AuthService.make(
            configuration: configuration.auth, store: store, hasher: hasher, issuer: issuer, serverSecret: serverSecret, time: time,
            renderer: configuration.templates, outboxSignal: signal, sms: smsSender(configuration), metrics: counted, hooks: hooks,
            logger: logger)
        let signingKeys = SigningKeys(
            store: store, issuer: issuer, serverSecret: serverSecret, settings: SigningKeys.Settings(configuration.auth), time: time,
            random: service.random)
        let mailer: any Mailer =
            mailHook
            ? HookMailer(hooks: hooks)
            : try configuration.smtp.map { try SMTPMailer(configuration: $0) } ?? DevMailbox(store: store, time: time)
        let webhookEndpoints = WebhookEndpoints(store: store, serverSecret: serverSecret, time: time, random: service.random)
        try await webhookEndpoints.configureFromEnvironment(
            url: configuration.webhook.url, secret: configuration.webhook.secret, events: configuration.webhook.events)
        let delivery = OutboxDelivery(
            store: store, mailer: mailer, sealer: service.sealer, time: time, retry: configuration.mailRetry, metrics: counted,
            webhooks: HTTPWebhookSender(endpoints: webhookEndpoints, client: outbound, time: time, policy: configuration.outbound),
            tracer: tracing?.tracer,
            logger: logger)

        let openAPI =
            Bundle.module.url(forResource: "openapi", withExtension: "json", subdirectory: "Resources")
            .flatMap { try? Data(contentsOf: $0) } ?? Data("{}".utf8)

        let router = Router(context: APIRequestContext.self)
        let allowed = AllowedMethods()
        router.add(middleware: RequestLogMiddleware(level: configuration.logging.requests ? .info : .debug))
        if let tracing { router.add(middleware: RequestTracingMiddleware(tracer: tracing.tracer)) }
        if let metrics { router.add(middleware: RequestMetricsMiddleware(metrics: metrics)) }
        router.add(middleware: ErrorMiddleware(allowed: allowed))
        router.add(middleware: RepeatedQueryMiddleware())
        let trustedIPHeader = configuration.trustedIPHeader.flatMap { HTTPField.Name($0) }
        let resolver = ClientResolver(
            trustedIPHeader: trustedIPHeader, trustedProxies: configuration.trustedProxies, logger: logger)
        router.add(middleware: AuditContextMiddleware(resolver: resolver))
        router.add(
            middleware: CORSMiddleware(
                allowOrigin: .originBased,
                allowHeaders: [
                    .accept, .authorization, .contentType, .init("X-Client-IP")!, .init("X-Client-Info")!, .init("X-JWT-AUD")!,
                    .init("x-use-cookie")!, .init("X-Supabase-Api-Version")!, .init("apikey")!,
                ],
                allowMethods: [.get, .post, .put, .patch, .delete, .options],
                exposedHeaders: ["X-Total-Count", "Link", "X-Supabase-Api-Version"]))
        var routes = RouteRegistrar(router: router, allowed: allowed, tracer: tracing?.tracer)
        let readiness = Readiness()
        MetaController(
            service: service, openAPI: openAPI, databaseAnswers: { await database.ping() }, readiness: readiness,
            appleApps: configuration.appleApps
        ).register(
            &routes)
        let authenticator = service.authenticator
        let deviceKeySignIn = DeviceKeySignIn(
            store: store, assertions: JWTAssertionReader(), limiter: service.limiter,
            settings: DeviceKeySignIn.Settings(configuration.auth),
            answers: service.answers, time: time)
        let sessionRefresh = SessionRefresh(
            store: store, limiter: service.limiter, settings: SessionRefresh.Settings(configuration.auth), answers: service.answers,
            time: time, logger: logger)
        let passwordSignIn = PasswordSignIn(
            store: store, passwords: service.passwords, limiter: service.limiter, settings: PasswordSignIn.Settings(configuration.auth),
            answers: service.answers, time: time)
        let anonymousUsers = AnonymousUsers(
            store: store, limiter: service.limiter, settings: AnonymousUsers.Settings(configuration.auth), records: service.records)
        let authCodeExchange = AuthCodeExchange(
            store: store, limiter: service.limiter, tokenPerIP: configuration.auth.rateLimits.tokenPerIP, records: service.records)
        let fetcher = HTTPDocumentFetcher(client: outbound, policy: configuration.outbound)
        let customProviders = CustomProviders(
            store: store, serverSecret: serverSecret, externalURL: configuration.auth.externalURL, time: time, random: service.random)
        CustomProviderController(authenticator: authenticator, providers: customProviders).register(&routes)
        let providerClient = HTTPOAuthProviderClient(fetcher: fetcher, client: outbound, time: time, policy: configuration.outbound)
        let configuredProviders = IDTokenSignIn.Settings(configuration.auth).providers
        let grants = ProviderGrants(
            store: store, client: providerClient, serverSecret: serverSecret,
            lookup: { name in configuredProviders.first { $0.name == name } }, time: time, logger: logger)
        let idTokenSignIn = IDTokenSignIn(
            store: store,
            tokens: OpenIDTokenReader(keys: OpenIDKeyCache(fetcher: fetcher, time: time, ttl: configuration.auth.external.keyCacheTTL)),
            limiter: service.limiter, settings: IDTokenSignIn.Settings(configuration.auth), records: service.records, logger: logger,
            directory: customProviders, grants: grants)
        let flows = OAuthRedirects(
            signIn: idTokenSignIn,
            client: providerClient,
            limits: store, serverSecret: serverSecret, redirects: service.redirects,
            lifetime: TimeInterval(configuration.auth.flowStateExpiry), externalURL: configuration.auth.externalURL)
        OAuthController(
            flows: flows,
            binding: BrowserBinding(externalURL: configuration.auth.externalURL, lifetime: configuration.auth.flowStateExpiry)
        ).register(&routes)
        IdentityController(
            authenticator: authenticator,
            links: IdentityLinks(
                store: store, flows: flows, enabled: configuration.auth.external.manualLinking, records: service.records)
        ).register(&routes)
        let passkeys = Passkeys(
            store: store, limiter: service.limiter, settings: configuration.auth.passkeys, records: service.records)
        let captcha = CaptchaGuard(
            gate: CaptchaGate(
                verifier: configuration.captcha.map {
                    HTTPCaptchaVerifier(settings: $0, client: outbound, policy: configuration.outbound, logger: logger)
                }),
            authenticator: authenticator)
        PasskeyController(authenticator: authenticator, passkeys: passkeys, captcha: captcha).register(&routes)
        let oneTimeCodes = OneTimeCodes(
            store: store, codes: service.codes, limiter: service.limiter, settings: OneTimeCodes.Settings(configuration.auth))
        let userAccount = UserAccount(
            store: store, passwords: service.passwords, codes: service.codes, records: service.records, limiter: service.limiter,
            settings: UserAccount.Settings(configuration.auth), grants: grants)
        let signUp = SignUp(
            store: store, passwords: service.passwords, codes: service.codes, records: service.records, limiter: service.limiter,
            settings: SignUp.Settings(configuration.auth))
        AuthController(
            authenticator: authenticator, anonymousUsers: anonymousUsers, passwordSignIn: passwordSignIn,
            authCodeExchange: authCodeExchange, deviceKeySignIn: deviceKeySignIn, idTokenSignIn: idTokenSignIn,
            sessionRefresh: sessionRefresh, oneTimeCodes: oneTimeCodes, userAccount: userAccount, signUp: signUp, captcha: captcha
        ).register(&routes)
        let adminUsers = AdminUsers(
            store: store, passwords: service.passwords, codes: service.codes, records: service.records,
            settings: AdminUsers.Settings(configuration.auth), grants: grants)
        let invitations = Invitations(
            store: store, passwords: service.passwords, codes: service.codes, records: service.records,
            userMetadataMaxBytes: configuration.auth.userMetadataMaxBytes)
        let verification = Verification(
            store: store, limiter: service.limiter, settings: Verification.Settings(configuration.auth), records: service.records,
            redirects: service.redirects)
        VerifyController(verification: verification, linkConfirmationPage: configuration.auth.linkConfirmationPage).register(&routes)
        if configuration.pages.enabled {
            HostedPagesController(
                pages: configuration.pages.renderer,
                security: PageSecurity(serverSecret: serverSecret, externalURL: configuration.auth.externalURL),
                redirects: service.redirects,
                useCases: .init(
                    codes: oneTimeCodes, verification: verification, passwordSignIn: passwordSignIn, signUp: signUp,
                    userAccount: userAccount, passwordPolicy: service.passwords.policy, passkeys: passkeys,
                    handOff: SessionHandOff(
                        store: store, records: service.records, lifetime: TimeInterval(configuration.auth.flowStateExpiry)),
                    authenticator: authenticator, captcha: captcha.gate),
                options: .init(configuration.auth, captcha: configuration.captcha)
            ).register(&routes)
        }
        let deviceKeys = DeviceKeys(
            store: store, gate: SecondFactorGate(factors: store), time: time, random: service.random)
        DeviceKeyController(authenticator: authenticator, keys: deviceKeys).register(&routes)
        let keyVaults = KeyVaults(
            store: store, serverSecret: serverSecret, gate: SecondFactorGate(factors: store), limiter: service.limiter,
            unlockLimit: configuration.auth.rateLimits.verifyPerIP, time: time, random: service.random)
        KeyVaultController(authenticator: authenticator, vaults: keyVaults).register(&routes)
        let signer = SignerBackups(
            store: store, serverSecret: serverSecret, gate: SecondFactorGate(factors: store), time: time, random: service.random)
        SignerController(authenticator: authenticator, signer: signer).register(&routes)
        let mfa = MFA(
            store: store, serverSecret: serverSecret, limiter: service.limiter, settings: MFA.Settings(configuration.auth),
            answers: service.answers, notices: service.notices, time: time, random: service.random)
        AdminController(
            users: adminUsers, authenticator: authenticator, audit: AuditLog(store: store), mfa: mfa, invitations: invitations
        ).register(&routes)
        AdminWebhooksController(webhooks: webhookEndpoints, authenticator: authenticator).register(&routes)
        if configuration.pages.adminConsole {
            AdminConsoleController(
                pages: configuration.pages.renderer,
                security: PageSecurity(serverSecret: serverSecret, externalURL: configuration.auth.externalURL),
                useCases: .init(
                    users: adminUsers, mfa: mfa, passkeys: passkeys, audit: AuditLog(store: store), codes: oneTimeCodes,
                    authenticator: authenticator),
                sessionLength: configuration.pages.adminSession, time: time, revocations: store
            ).register(&routes)
        }
        MFAController(authenticator: authenticator, mfa: mfa).register(&routes)
        SSOController().register(&routes)
        if DevMailboxController.isEnabled(
            smtpConfigured: configuration.smtp != nil || mailHook, host: configuration.host, trustedIPHeader: trustedIPHeader,
            public: configuration.devMailboxPublic)
        {
            DevMailboxController(
                store: store, allowRemote: configuration.devMailboxPublic
            ).register(&routes)
        }

        var metricsService: (any Service)?
        if let metrics {
            let scraper = MetricsController(metrics: metrics, store: store, time: time, token: configuration.metrics.token)
            if configuration.metrics.token != nil { scraper.register(&routes) }
            if let port = configuration.metrics.port {
                metricsService = MetricsController(metrics: metrics, store: store, time: time, token: nil).application(
                    host: configuration.metrics.host, port: port, logger: logger)
            }
        }

        let retentionDays = configuration.auth.anonymousUserRetentionDays
        var anonymousCleanup: (@Sendable () async throws -> Int)?
        if retentionDays > 0 {
            anonymousCleanup = { try await anonymousUsers.deleteStale(olderThanDays: retentionDays) }
        }
        var application = Application(
            router: router, server: .http1(timeouts: configuration.httpTimeouts),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "Latchkey"),
            services: [
                ReadinessService(readiness: readiness),
                CleanupService(
                    store: store, time: time, interval: .seconds(300), auditRetentionDays: configuration.auditRetentionDays,
                    anonymousCleanup: anonymousCleanup,
                    logger: logger),
                SigningKeyReloadService(keys: signingKeys, interval: .seconds(configuration.keyReloadInterval), logger: logger),
                OutboxDeliveryService(delivery: delivery, signal: signal, idle: .seconds(5), logger: logger),
            ] + (metricsService.map { [$0] } ?? []) + (tracing.map { [$0.service] } ?? []),
            logger: logger)
        application.beforeServerStarts {}
        let shutdown: @Sendable () async throws -> Void = {
            try await database.close()
            try await pool.shutdownGracefully()
            try await outbound.shutdown()
        }
        var app = LatchkeyApp(
            application: application, service: service, signingKeys: signingKeys, anonymousUsers: anonymousUsers,
            verification: verification, adminUsers: adminUsers, invitations: invitations, customProviders: customProviders,
            store: store, webhooks: webhookEndpoints,
            delivery: delivery, routes: routes.catalog,
            shutdown: shutdown)
        app.serverSecretOrigin = secretSource.origin
        return app
    } catch {
        try? await database.close()
        try? await pool.shutdownGracefully()
        try? await outbound.shutdown()
        throw error
    }
}
