import Foundation
import LatchkeyAPI
import LatchkeyWebAuthn

/// GoTrue's second factors (`/factors`), TOTP, phone and WebAuthn: enrol, challenge, verify
/// (raising the session to `aal2`) and unenrol, and the operator's view of a user's factors.
public struct MFA: Sendable {
    /// What the factor routes are configured with.
    public struct Settings: Sendable {
        public var factors: MFASettings
        /// Challenges and verifications per client IP (`GOTRUE_RATE_LIMIT_VERIFY`'s MFA budget).
        public var perIP: RateLimit
        /// The per-account count of wrong passwords, which wrong codes feed too.
        public var accountFailures: RateLimit
        /// The issuer authenticator apps show when the request names none: the site's host.
        public var defaultIssuer: String
        /// The SMS budgets phone sign-in codes are held to, per number and in total.
        public var smsPerNumber: RateLimit
        public var smsSent: RateLimit
        /// The relying party WebAuthn factors are registered with and checked by: the passkeys'
        /// (`webauthn-rp-id`, `webauthn-rp-origins`), with the factors' own user verification.
        public var relyingParty: RelyingParty
        /// The name authenticators show for it (`webauthn-rp-display-name`).
        public var relyingPartyName: String

        public init(
            factors: MFASettings, perIP: RateLimit, accountFailures: RateLimit, defaultIssuer: String, smsPerNumber: RateLimit = .off,
            smsSent: RateLimit = .off, relyingParty: RelyingParty = RelyingParty(id: "localhost", origins: ["http://localhost"]),
            relyingPartyName: String = "Latchkey"
        ) {
            self.factors = factors
            self.perIP = perIP
            self.accountFailures = accountFailures
            self.defaultIssuer = defaultIssuer
            self.smsPerNumber = smsPerNumber
            self.smsSent = smsSent
            self.relyingParty = relyingParty
            self.relyingPartyName = relyingPartyName
            self.relyingParty.requireUserVerification = factors.webAuthn.requireUserVerification
        }

        /// The settings of `configuration`.
        public init(_ configuration: AuthConfiguration) {
            self.init(
                factors: configuration.mfa, perIP: configuration.rateLimits.mfaPerIP,
                accountFailures: configuration.rateLimits.signInFailuresPerAccount,
                defaultIssuer: URL(string: configuration.siteURL)?.host ?? configuration.appName,
                smsPerNumber: configuration.rateLimits.smsPerNumber, smsSent: configuration.rateLimits.smsSent,
                relyingParty: configuration.passkeys.relyingParty, relyingPartyName: configuration.passkeys.displayName)
        }
    }

    /// Verifications that lose a race with another write to their factor or session and read again.
    static let maxRaces = 32

    let store: any FactorStore
    /// Seals TOTP secrets.
    let box: SecretBox
    let limiter: RateLimiter
    let settings: Settings
    let records: Records
    /// Sends phone factors' codes (the `send-sms` hook included).
    let sms: any SMSSender

    /// - Parameter serverSecret: TOTP secrets are sealed under a key derived from it.
    public init(
        store: any FactorStore, serverSecret: [UInt8], limiter: RateLimiter, settings: Settings, records: Records, sms: any SMSSender
    ) {
        self.store = store
        self.box = Self.secretBox(serverSecret: serverSecret)
        self.limiter = limiter
        self.settings = settings
        self.records = records
        self.sms = sms
    }

    var answers: SessionAnswers { records.answers }
    var notices: Notices { records.notices }
    var time: any TimeSource { records.time }
    var random: any RandomSource { records.random }

    /// The box that seals TOTP secrets.
    static func secretBox(serverSecret: [UInt8]) -> SecretBox {
        SecretBox(serverSecret: serverSecret, purpose: "latchkey totp secret v1")
    }

    var events: AuditEvents { records.events }

    /// `POST /factors`: a new, unverified TOTP factor with a 160-bit secret, its `otpauth://`
    /// URI and an SVG QR code of it. A user who already has a verified factor needs an `aal2`
    /// session to add another.
    public func enroll(_ request: EnrollFactorRequest, principal: Principal) async throws -> TOTPEnrollment {
        try principal.user.refuseIfAnonymous()
        guard settings.factors.totpEnrollEnabled else {
            throw AuthError(.mfaTOTPEnrollNotEnabled, "MFA enroll is disabled for TOTP")
        }
        guard let type = request.factorType, type == "totp" else {
            throw AuthError.validation("factor_type needs to be totp, phone, or webauthn")
        }
        let name = try Self.friendlyName(request.friendlyName)
        let issuer = try issuer(request.issuer)
        let user = principal.user
        try requireRoomForAnother(try await store.factors(userID: user.id), principal: principal)
        let now = time.now()
        let totp = TOTP(secret: random.bytes(20))
        let id = random.uuid()
        let account = user.email ?? user.phone.map { "+" + $0 } ?? user.id.lowercasedString
        let uri = totp.uri(issuer: issuer, account: account)
        let factor = FactorRecord(
            id: id, userID: user.id, friendlyName: name,
            sealedSecret: try box.seal(totp.secret, context: id.lowercasedString), createdAt: now, updatedAt: now)
        let event = events.event(.factorEnrolled, user: user, details: ["factor_id": .string(id.lowercasedString), "type": "totp"])
        try await create(factor, name: name, audit: event)
        return TOTPEnrollment(
            id: id, type: "totp", friendlyName: name,
            totp: .init(qrCode: try QRCode(encoding: uri).svg(), secret: Base32.encode(totp.secret), uri: uri))
    }

    /// `POST /factors/{id}/challenge`: a challenge to verify a code against, from this address,
    /// before it expires. A phone factor's challenge sends its code (``challengePhone(_:channel:principal:client:now:)``);
    /// a WebAuthn factor's carries the authenticator's options (``challengeWebAuthn(_:principal:client:now:)``).
    public func challenge(
        id raw: String, _ request: ChallengeFactorRequest = .init(), principal: Principal, client: ClientInfo
    ) async throws -> FactorChallenge {
        try principal.user.refuseIfAnonymous()
        try await limiter.hit("ip:mfa:\(client.limitKey)", settings.perIP)
        // `sms` (also for none) or `whatsapp`, checked for every type so the body means one thing.
        let channel = try Codes.channel(request.channel)
        let factor = try await ownFactor(raw, of: principal.user)
        try requireVerification(of: factor)
        let now = time.now()
        if let locked = factor.lockedUntil, locked > now { throw Self.locked(until: locked, now: now) }
        switch factor.factorType {
        case "phone": return try await challengePhone(factor, channel: channel, principal: principal, client: client, now: now)
        case "webauthn": return try await challengeWebAuthn(factor, principal: principal, client: client, now: now)
        default: break
        }
        let challenge = FactorChallengeRecord(
            id: random.uuid(), factorID: factor.id, ip: client.ip, createdAt: now,
            expiresAt: now.addingTimeInterval(Double(settings.factors.challengeExpiry)))
        try await store.createChallenge(challenge)
        return FactorChallenge(id: challenge.id, type: factor.factorType, expiresAt: Int(challenge.expiresAt.timeIntervalSince1970))
    }

    /// `DELETE /factors/{id}`: removing a verified factor needs an `aal2` session.
    public func unenroll(id raw: String, principal: Principal) async throws -> UnenrolledFactor {
        try principal.user.refuseIfAnonymous()
        let factor = try await ownFactor(raw, of: principal.user)
        if factor.status == .verified, principal.session?.aal != "aal2", !principal.isAdmin {
            throw AuthError(.insufficientAAL, "AAL2 required to unenroll verified factor")
        }
        try await delete(factor, of: principal.user)
        return UnenrolledFactor(id: factor.id)
    }

    /// `GET /admin/users/{id}/factors`.
    public func factors(ofUser raw: String) async throws -> [Factor] {
        let user = try await existingUser(raw)
        return try await store.factors(userID: user.id).map(\.wire)
    }

    /// `DELETE /admin/users/{id}/factors/{fid}`: an operator removes a factor (a user who lost
    /// their authenticator).
    public func delete(factorID rawFactor: String, ofUser raw: String) async throws -> Factor {
        let user = try await existingUser(raw)
        let factor = try await ownFactor(rawFactor, of: user)
        try await delete(factor, of: user)
        return factor.wire
    }

    /// `DELETE /admin/users/{id}/factors` (Latchkey's): an operator resets a user's second
    /// factors (a lost phone, a suspected takeover): every factor goes, and with them every
    /// session and device key of the user, in one write, audited (`factor_unenrolled` for each,
    /// `logout` for the sessions) and told to the user when a verified factor went. The factors
    /// removed; none is `404 mfa_factor_not_found` and changes nothing.
    public func resetFactors(ofUser raw: String) async throws -> [Factor] {
        let user = try await existingUser(raw)
        let events = self.events
        let notices = self.notices
        let removed = try await store.resetFactors(userID: user.id) { deleted in
            deleted.map {
                events.event(.factorUnenrolled, user: user, details: ["factor_id": .string($0.id.lowercasedString), "reset": true])
            } + [events.event(.logout, user: user, details: ["scope": "global", "reason": "factors_reset"])]
        } outbox: { deleted in
            deleted.contains { $0.status == .verified } ? try notices.notice(.factorUnenrolled, to: user) : []
        }
        guard !removed.isEmpty else { throw Self.notFound }
        if removed.contains(where: { $0.status == .verified }) { notices.notify() }
        return removed.map(\.wire)
    }

    /// Deletes the factor. Removing a verified one also brings every `aal2` session of the user
    /// back to `aal1` (GoTrue's `DowngradeSessionsToAAL1`): sessions do not record which factor
    /// raised them, so none keeps a level the removed factor may have given it.
    func delete(_ factor: FactorRecord, of user: UserRecord) async throws {
        let event = events.event(.factorUnenrolled, user: user, details: ["factor_id": .string(factor.id.lowercasedString)])
        let mail = factor.status == .verified ? try notices.notice(.factorUnenrolled, to: user) : []
        guard
            try await store.deleteFactor(
                id: factor.id, userID: user.id, downgradingSessions: factor.status == .verified, audit: [event], outbox: mail) != nil
        else {
            throw Self.notFound
        }
        if !mail.isEmpty { notices.notify() }
    }

    func existingUser(_ raw: String) async throws -> UserRecord {
        guard let id = UUID(text: raw), let user = try await store.user(id: id) else { throw AuthError.adminUserNotFound }
        return user
    }

    func ownFactor(_ raw: String, of user: UserRecord) async throws -> FactorRecord {
        guard let id = UUID(text: raw), let factor = try await store.factors(userID: user.id).first(where: { $0.id == id }) else {
            throw Self.notFound
        }
        return factor
    }

    /// GoTrue's rules for another factor: fewer verified factors than the cap, and with a verified
    /// one, an `aal2` session.
    func requireRoomForAnother(_ factors: [FactorRecord], principal: Principal) throws {
        let verified = factors.filter { $0.status == .verified }.count
        if verified >= settings.factors.maxVerifiedFactors {
            throw AuthError(.tooManyEnrolledMFAFactors, "Maximum number of verified factors reached, unenroll to continue")
        }
        if verified > 0, principal.session?.aal != "aal2" { throw AuthError(.insufficientAAL, "AAL2 required to enroll a new factor") }
    }

    /// GoTrue's switches: a factor of a type whose verification is off is neither challenged
    /// nor verified.
    func requireVerification(of factor: FactorRecord) throws {
        if let refusal = verificationRefusal(of: factor) { throw refusal }
    }

    /// Why `factor` may not be challenged or verified now, if it may not.
    func verificationRefusal(of factor: FactorRecord) -> AuthError? {
        switch factor.factorType {
        case "phone":
            settings.factors.phone.verifyEnabled ? nil : AuthError(.mfaPhoneVerifyNotEnabled, "MFA verification is disabled for Phone")
        case "webauthn":
            settings.factors.webAuthn.verifyEnabled
                ? nil : AuthError(.mfaWebAuthnVerifyNotEnabled, "MFA verification is disabled for WebAuthn")
        default:
            settings.factors.totpVerifyEnabled ? nil : AuthError(.mfaTOTPVerifyNotEnabled, "MFA verification is disabled for TOTP")
        }
    }

    /// The issuer shown in authenticator apps: the request's, else the site's host.
    func issuer(_ raw: String?) throws -> String {
        guard let raw, !raw.isEmpty else { return settings.defaultIssuer }
        guard raw.unicodeScalars.count <= 100, !raw.contains(":") else {
            throw AuthError.validation("issuer must be at most 100 characters, without a colon")
        }
        return raw
    }

    static let notFound = AuthError(.mfaFactorNotFound, "Factor not found")

    static func locked(until: Date, now: Date) -> AuthError {
        let seconds = max(1, Int(until.timeIntervalSince(now).rounded(.up)))
        return AuthError(
            .overRequestRateLimit, "Too many wrong codes: this factor is locked for \(seconds) seconds", retryAfter: seconds)
    }
}
