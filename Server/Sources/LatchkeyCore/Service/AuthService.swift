import Foundation
import LatchkeyAPI
import Logging

/// The use cases of the auth server: sign-up, sign-in, codes, sessions and the user.
///
/// Knows nothing about HTTP or SQL: it reads and writes through ``AuthStore``, queues mail in the
/// store's outbox (``OutboxDelivery`` sends it) and hashes through ``PasswordHasher``.
public struct AuthService: Sendable {
    public let configuration: AuthConfiguration
    public let store: any AuthStore
    public let hasher: any PasswordHasher
    public let issuer: TokenIssuer
    public let refreshCodec: RefreshTokenCodec
    public let time: any TimeSource
    /// New ids and random bytes (refresh salts, TOTP secrets); seeded in tests.
    public let random: any RandomSource
    public let passwordPolicy: PasswordPolicy
    public let redirects: RedirectPolicy
    public let composer: EmailComposer
    public let limiter: RateLimiter
    /// Sends SMS codes.
    public let sms: any SMSSender
    /// Seals queued messages; they carry codes and links.
    public let sealer: OutboxSealer
    /// Seals TOTP secrets.
    public let factorBox: SecretBox
    /// Seals the stored token signing keys.
    public let keyBox: SecretBox
    /// Wakes the outbox delivery after a message was queued.
    public let outboxSignal: OutboxSignal
    public let logger: Logger
    /// A hash of a random password, verified against when the account does not exist, so that
    /// unknown and known accounts take the same time.
    let decoyHash: String

    public init(
        configuration: AuthConfiguration, store: any AuthStore, hasher: any PasswordHasher,
        issuer: TokenIssuer, serverSecret: [UInt8], time: any TimeSource = SystemTimeSource(),
        random: any RandomSource = SystemRandomSource(), renderer: any MessageRenderer,
        blocklist: Set<String> = PasswordPolicy.bundledBlocklist(), outboxSignal: OutboxSignal = OutboxSignal(),
        sms: (any SMSSender)? = nil,
        logger: Logger = Logger(label: "latchkey"), decoyHash: String
    ) {
        self.configuration = configuration
        self.store = store
        self.hasher = hasher
        self.issuer = issuer
        self.refreshCodec = RefreshTokenCodec(serverSecret: serverSecret)
        self.time = time
        self.random = random
        self.passwordPolicy = PasswordPolicy(settings: configuration.password, blocklist: blocklist)
        self.redirects = RedirectPolicy(siteURL: configuration.siteURL, allowList: configuration.uriAllowList)
        self.composer = EmailComposer(
            appName: configuration.appName, externalURL: configuration.externalURL, siteURL: configuration.siteURL,
            templates: renderer, validMinutes: max(1, configuration.otp.expiry / 60))
        self.limiter = RateLimiter(store: store, time: time)
        self.sms = sms ?? DevSMSOutbox(store: store, time: time)
        self.sealer = OutboxSealer(serverSecret: serverSecret)
        self.factorBox = SecretBox(serverSecret: serverSecret, purpose: "latchkey totp secret v1")
        self.keyBox = Self.signingKeyBox(serverSecret: serverSecret)
        self.outboxSignal = outboxSignal
        self.logger = logger
        self.decoyHash = decoyHash
    }

    /// Builds a service, with a decoy hash from the configured hasher.
    public static func make(
        configuration: AuthConfiguration, store: any AuthStore, hasher: any PasswordHasher,
        issuer: TokenIssuer, serverSecret: [UInt8], time: any TimeSource = SystemTimeSource(),
        random: any RandomSource = SystemRandomSource(), renderer: any MessageRenderer, outboxSignal: OutboxSignal = OutboxSignal(),
        sms: (any SMSSender)? = nil, logger: Logger = Logger(label: "latchkey")
    ) async throws -> AuthService {
        let decoy = try await hasher.decoyHash()
        return AuthService(
            configuration: configuration, store: store, hasher: hasher, issuer: issuer, serverSecret: serverSecret, time: time,
            random: random, renderer: renderer, outboxSignal: outboxSignal, sms: sms, logger: logger, decoyHash: decoy)
    }

    /// The box that seals stored signing keys.
    public static func signingKeyBox(serverSecret: [UInt8]) -> SecretBox {
        SecretBox(serverSecret: serverSecret, purpose: "latchkey signing key v1")
    }

    /// `GET /settings`.
    public var settings: ServerSettings {
        ServerSettings(
            external: ["email": true, "phone": configuration.sms.enabled, "anonymous_users": configuration.anonymousUsers],
            disableSignup: configuration.disableSignup, mailerAutoconfirm: configuration.mailerAutoconfirm,
            phoneAutoconfirm: configuration.sms.autoconfirm, smsProvider: sms.providerName, samlEnabled: false)
    }

    // MARK: Shared helpers

    /// The canonical form of a request's address, or a `400 email_address_invalid`.
    func canonicalEmail(_ raw: String?) throws -> String {
        guard let raw, !raw.isEmpty else { throw AuthError(.validationFailed, "An email address is required") }
        guard let email = EmailAddress.canonical(raw) else {
            throw AuthError(.emailAddressInvalid, "Unable to validate email address: invalid format")
        }
        return email
    }

    /// A new session record for `user`, proved by `method`.
    func newSession(for user: UserRecord, method: String, client: ClientInfo, now: Date) -> SessionRecord {
        SessionRecord(
            id: random.uuid(), userID: user.id, amr: [AuthenticationMethod(method: method, timestamp: Int(now.timeIntervalSince1970))],
            refreshSalt: random.bytes(32), refreshedAt: nil, userAgent: client.userAgent, ip: client.ip,
            createdAt: now, updatedAt: now)
    }

    /// The `iss` of every token this server signs: `GOTRUE_JWT_ISSUER`, else the external URL.
    var issuerClaim: String { configuration.jwt.issuer.isEmpty ? configuration.externalURL : configuration.jwt.issuer }

    /// The wire session for a stored session: a new access token and the current refresh token.
    /// The user's identities and factors come from `account` when the store read them with the
    /// session (in the transaction that stored it), else from a read of their own.
    func sessionResponse(
        user: UserRecord, session: SessionRecord, account: AccountRecords? = nil, weakPassword: WeakPassword? = nil
    ) async throws -> Session {
        let now = time.now()
        let expiresAt = Int(now.timeIntervalSince1970) + configuration.jwt.expiry
        let claims = AccessTokenClaims(
            iss: issuerClaim, sub: user.id.uuidString.lowercased(), aud: configuration.jwt.audience, exp: expiresAt,
            iat: Int(now.timeIntervalSince1970), email: user.email ?? "", phone: user.phone ?? "",
            appMetadata: user.appMetadata, userMetadata: user.userMetadata, role: user.role, aal: session.aal,
            amr: session.amr, sessionID: session.id.uuidString.lowercased(), isAnonymous: user.isAnonymous)
        let accessToken = try await issuer.sign(claims)
        let wired: User
        if let account {
            wired = Self.wire(user, identities: account.identities, factors: account.factors)
        } else {
            wired = try await wireUser(user)
        }
        let refreshToken = refreshCodec.encode(
            sessionID: session.id, counter: session.refreshCounter, salt: session.refreshSalt)
        return Session(
            accessToken: accessToken, expiresIn: configuration.jwt.expiry, expiresAt: expiresAt,
            refreshToken: refreshToken, user: wired, weakPassword: weakPassword)
    }

    /// The wire user with its identities and its factors (unverified ones too, as GoTrue; left
    /// out when there are none).
    func wireUser(_ user: UserRecord) async throws -> User {
        let account = try await store.account(userID: user.id, sessionID: nil)
        return Self.wire(user, identities: account.identities, factors: account.factors)
    }

    static func wire(_ user: UserRecord, identities: [IdentityRecord], factors: [FactorRecord]) -> User {
        var wire = user.wire(identities: identities)
        wire.factors = factors.isEmpty ? nil : factors.map(\.wire)
        return wire
    }

    /// Counts a request that may send a code or a link against the client's budgets: GoTrue's per
    /// 5 minutes and Latchkey's per hour.
    func hitSendLimits(_ client: ClientInfo) async throws {
        try await limiter.hit(sendLimits(client))
    }

    /// The client's budgets for requests that may send a code or a link.
    func sendLimits(_ client: ClientInfo) -> [LimitBudget.Limit] {
        [
            LimitBudget.Limit("ip:otp:\(client.ip)", configuration.rateLimits.otpPerIP),
            LimitBudget.Limit("ip:otp-hour:\(client.ip)", configuration.rateLimits.otpPerIPHourly),
        ]
    }

    /// `validation_failed` for `user_metadata` larger than the configured bytes of JSON.
    func checkMetadataSize(_ metadata: [String: JSONValue]) throws {
        guard !metadata.isEmpty else { return }
        let size = (try? JSONEncoder().encode(metadata).count) ?? .max
        guard size <= configuration.userMetadataMaxBytes else {
            throw AuthError.unprocessable("user metadata must be at most \(configuration.userMetadataMaxBytes) bytes of JSON, not \(size)")
        }
    }

    /// Counts one email to `address` against the per-address and total limits.
    func countEmail(to address: String) async throws {
        try await limiter.hit(emailLimits(to: address))
    }

    /// The per-address and total email budgets one email to `address` counts against (none when
    /// sign-ups need no confirmation).
    func emailLimits(to address: String) -> [LimitBudget.Limit] {
        if configuration.mailerAutoconfirm { return [] }
        return [
            LimitBudget.Limit("email:addr:\(address)", configuration.rateLimits.emailPerAddress, refusal: AuthError.emailRateLimited),
            LimitBudget.Limit("email:all", configuration.rateLimits.emailSent, refusal: AuthError.emailRateLimited),
        ]
    }

    /// Throws the resend cooldown error when the last message went out too recently.
    func checkCooldown(
        lastSent: Date?, now: Date, frequency: Int? = nil, error: (Int) -> AuthError = AuthError.sendCooldown(seconds:)
    ) throws {
        let frequency = frequency ?? configuration.otp.sendFrequency
        guard frequency > 0, let lastSent else { return }
        let elapsed = now.timeIntervalSince(lastSent)
        if elapsed < Double(frequency) { throw error(Int((Double(frequency) - elapsed).rounded(.up))) }
    }

    /// Outbox rows for `messages`, sealed and due now; the caller stores them in the transaction
    /// that makes them true, then calls ``outboxSignal``'s `notify()`.
    func outbox(_ messages: EmailMessage...) throws -> [OutboxRecord] { try outbox(messages) }

    /// Outbox rows for `messages`.
    func outbox(_ messages: [EmailMessage]) throws -> [OutboxRecord] {
        let now = time.now()
        return try messages.map { message in
            var record = OutboxRecord(
                recipient: message.to.joined(separator: ", "), payload: try sealer.seal(message), nextAttemptAt: now, createdAt: now)
            record.message = message
            return record
        }
    }

    /// Queues a message that goes with no other write, and wakes the delivery.
    func enqueue(_ message: EmailMessage) async throws {
        try await store.enqueueOutbox(try outbox(message))
        outboxSignal.notify()
    }
}
