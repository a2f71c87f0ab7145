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

/// The HTTP application over `useCases`: the router (middleware and every controller) and the
/// services that run beside it (readiness, cleanup, key reloads, outbox delivery, metrics, the
/// span exporter). The environment's webhook endpoint is recorded here, as the server starts
/// (a `latchkey` command never touches it). `latchkey serve` and the tests build it; it owns
/// nothing of `useCases` (shut those down after it stops).
public func buildApplication(
    configuration: ServerConfiguration, useCases: UseCases, observability: Observability = .none,
    logger: Logger = Logger(label: "latchkey")
) async throws -> some ApplicationProtocol {
    try await useCases.admin.webhooks.configureFromEnvironment(
        url: configuration.webhook.url, secret: configuration.webhook.secret, events: configuration.webhook.events)
    let readiness = Readiness()
    let router = buildRouter(
        configuration: configuration, useCases: useCases, observability: observability, readiness: readiness, logger: logger)
    var metricsService: (any Service)?
    if let metrics = observability.metrics, let port = configuration.metrics.port {
        metricsService = MetricsController(metrics: metrics, store: useCases.store, time: useCases.time, token: nil).application(
            host: configuration.metrics.host, port: port, logger: logger)
    }
    let retentionDays = configuration.auth.anonymousUserRetentionDays
    let anonymousUsers = useCases.signIn.anonymous
    let anonymousCleanup: (@Sendable () async throws -> Int)? =
        retentionDays > 0 ? { @Sendable in try await anonymousUsers.deleteStale(olderThanDays: retentionDays) } : nil
    let services: [any Service] = [
        ReadinessService(readiness: readiness),
        CleanupService(
            store: useCases.store, time: useCases.time, interval: .seconds(300), auditRetentionDays: configuration.auditRetentionDays,
            anonymousCleanup: anonymousCleanup, logger: logger),
        SigningKeyReloadService(keys: useCases.admin.signingKeys, interval: .seconds(configuration.keyReloadInterval), logger: logger),
        OutboxDeliveryService(
            delivery: useCases.runtime.delivery, signal: useCases.runtime.outboxSignal, idle: .seconds(5), logger: logger),
    ]
    return Application(
        router: router.router, server: .http1(timeouts: configuration.httpTimeouts),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "Latchkey"),
        services: services + (metricsService.map { [$0] } ?? []) + (observability.tracingService.map { [$0] } ?? []),
        logger: logger)
}

/// The router: middleware, then every controller over its use cases, and the catalogue of the
/// routes it serves (docs/api.md and the OpenAPI document are checked against it).
public func buildRouter(
    configuration: ServerConfiguration, useCases: UseCases, observability: Observability = .none, readiness: Readiness = Readiness(),
    logger: Logger = Logger(label: "latchkey")
) -> (router: Router<APIRequestContext>, catalog: RouteCatalog) {
    let openAPI =
        Bundle.module.url(forResource: "openapi", withExtension: "json", subdirectory: "Resources")
        .flatMap { try? Data(contentsOf: $0) } ?? Data("{}".utf8)
    let auth = configuration.auth
    let router = Router(context: APIRequestContext.self)
    let allowed = AllowedMethods()
    router.add(middleware: RequestLogMiddleware(level: configuration.logging.requests ? .info : .debug))
    if let tracer = observability.tracer { router.add(middleware: RequestTracingMiddleware(tracer: tracer)) }
    if let metrics = observability.metrics { router.add(middleware: RequestMetricsMiddleware(metrics: metrics)) }
    // CORS outside the error middleware: it adds its headers to every answer, errors included
    // (inside, it wraps a thrown error in one the error middleware cannot read: every refusal
    // of a browser's cross-origin request was a bare 500).
    router.add(
        middleware: CORSMiddleware(
            allowOrigin: .originBased,
            allowHeaders: [
                .accept, .authorization, .contentType, .init("X-Client-IP")!, .init("X-Client-Info")!, .init("X-JWT-AUD")!,
                .init("x-use-cookie")!, .init("X-Supabase-Api-Version")!, .init("apikey")!,
            ],
            allowMethods: [.get, .post, .put, .patch, .delete, .options],
            exposedHeaders: ["X-Total-Count", "Link", "X-Supabase-Api-Version"]))
    router.add(middleware: ErrorMiddleware(allowed: allowed))
    router.add(middleware: RepeatedQueryMiddleware())
    let trustedIPHeader = configuration.trustedIPHeader.flatMap { HTTPField.Name($0) }
    let resolver = ClientResolver(trustedIPHeader: trustedIPHeader, trustedProxies: configuration.trustedProxies, logger: logger)
    router.add(middleware: AuditContextMiddleware(resolver: resolver))
    if let tracer = observability.tracer { router.add(middleware: HandlerTracingMiddleware(tracer: tracer)) }
    let authenticator = useCases.authenticator
    var routes = RouteRegistrar(router: router, allowed: allowed, authenticator: authenticator)
    MetaController(
        settings: useCases.parts.settings, issuer: useCases.issuer, openAPI: openAPI, databaseAnswers: useCases.runtime.databaseAnswers,
        readiness: readiness, appleApps: configuration.appleApps
    ).register(&routes)
    CustomProviderController(providers: useCases.admin.customProviders).register(&routes)
    OAuthClientController(clients: useCases.admin.oauthClients).register(&routes)
    OAuthServerController(
        server: useCases.browser.oauthServer, externalURL: configuration.auth.externalURL,
        dynamicRegistration: configuration.auth.oauthServer.enabled && configuration.auth.oauthServer.dynamicRegistration
    ).register(&routes)
    OAuthController(
        flows: useCases.browser.oauthRedirects, binding: BrowserBinding(externalURL: auth.externalURL, lifetime: auth.flowStateExpiry)
    ).register(&routes)
    IdentityController(links: useCases.account.identityLinks).register(&routes)
    let captcha = CaptchaGuard(gate: useCases.browser.captcha, authenticator: authenticator)
    PasskeyController(passkeys: useCases.account.passkeys, captcha: captcha).register(&routes)
    TokenController(
        authenticator: authenticator, passwordSignIn: useCases.signIn.password, sessionRefresh: useCases.signIn.refresh,
        authCodeExchange: useCases.signIn.authCode, idTokenSignIn: useCases.signIn.external.idToken,
        web3SignIn: useCases.signIn.external.web3, deviceKeySignIn: useCases.signIn.deviceKey,
        captcha: captcha
    ).register(&routes)
    SignUpController(signUp: useCases.account.signUp, anonymousUsers: useCases.signIn.anonymous, captcha: captcha).register(&routes)
    CodeController(oneTimeCodes: useCases.signIn.codes, captcha: captcha).register(&routes)
    UserController(userAccount: useCases.account.user).register(&routes)
    VerifyController(verification: useCases.signIn.verification, linkConfirmationPage: auth.linkConfirmationPage).register(&routes)
    let security = useCases.browser.pageSecurity
    if configuration.pages.enabled {
        HostedPagesController(
            pages: configuration.pages.renderer, security: security, redirects: useCases.parts.redirects,
            useCases: .init(
                codes: useCases.signIn.codes, verification: useCases.signIn.verification, passwordSignIn: useCases.signIn.password,
                signUp: useCases.account.signUp, userAccount: useCases.account.user, passwordPolicy: useCases.parts.passwords.policy,
                passkeys: useCases.account.passkeys,
                sessions: .init(
                    authenticator: authenticator, mfa: useCases.account.mfa, handOff: useCases.browser.handOff,
                    authCode: useCases.signIn.authCode, oauthServer: auth.oauthServer.enabled ? useCases.browser.oauthServer : nil)),
            options: .init(auth, captcha: configuration.captcha), captcha: useCases.browser.captcha
        ).register(&routes)
    }
    DeviceKeyController(keys: useCases.account.deviceKeys).register(&routes)
    KeyVaultController(vaults: useCases.account.keyVaults).register(&routes)
    SignerController(signer: useCases.account.signerBackups).register(&routes)
    AdminController(
        users: useCases.admin.users, audit: useCases.admin.audit, mfa: useCases.account.mfa,
        invitations: useCases.admin.invitations
    ).register(&routes)
    AdminWebhooksController(webhooks: useCases.admin.webhooks).register(&routes)
    if configuration.pages.adminConsole {
        AdminConsoleController(
            pages: configuration.pages.renderer, security: security,
            useCases: .init(
                users: useCases.admin.users, mfa: useCases.account.mfa, passkeys: useCases.account.passkeys, audit: useCases.admin.audit,
                codes: useCases.signIn.codes, authenticator: authenticator,
                oauthClients: auth.oauthServer.enabled ? useCases.admin.oauthClients : nil,
                oauthServer: auth.oauthServer.enabled ? useCases.browser.oauthServer : nil),
            sessionLength: configuration.pages.adminSession, time: useCases.time, revocations: useCases.store
        ).register(&routes)
    }
    MFAController(mfa: useCases.account.mfa).register(&routes)
    SSOController().register(&routes)
    let mailHook = configuration.hooks.endpoints[.sendEmail] != nil
    if DevMailboxController.isEnabled(
        smtpConfigured: configuration.smtp != nil || mailHook, host: configuration.host, trustedIPHeader: trustedIPHeader,
        public: configuration.devMailboxPublic)
    {
        DevMailboxController(store: useCases.store, allowRemote: configuration.devMailboxPublic).register(&routes)
    }
    if let metrics = observability.metrics, configuration.metrics.token != nil {
        MetricsController(metrics: metrics, store: useCases.store, time: useCases.time, token: configuration.metrics.token)
            .register(&routes)
    }
    return (router, routes.catalog)
}

/// What `configuration` asks for, assembled: its observability, the use cases over its store and
/// the HTTP application over them (`latchkey serve`, and the tests that serve). If the application
/// cannot be built, the use cases are shut down before the error is thrown; otherwise the caller
/// shuts them down once the application has stopped.
public func buildServer(
    configuration: ServerConfiguration, time: any TimeSource = SystemTimeSource(), logger: Logger = Logger(label: "latchkey")
) async throws -> (useCases: UseCases, application: some ApplicationProtocol) {
    let observability = try Observability(configuration)
    let useCases = try await makeUseCases(configuration: configuration, observability: observability, time: time, logger: logger)
    do {
        let application = try await buildApplication(
            configuration: configuration, useCases: useCases, observability: observability, logger: logger)
        return (useCases, application)
    } catch {
        try? await useCases.shutdown()
        throw error
    }
}
