import Foundation
import LatchkeyAPI

/// The signed-in user's own account: `GET /user`, `PUT /user` (metadata, password, a new address
/// or number) and `POST /logout`.
///
/// A credential change needs the second factor when the user has one, and, with
/// reauthentication required, a fresh nonce from an old session. Every change is decided on the
/// copy of the user it is written over: a ban or a password change by another request in
/// between is seen, not overwritten. A new password ends every other session.
public struct UserAccount: Sendable {
    /// What the account is configured with.
    public struct Settings: Sendable {
        public var password: PasswordSettings
        /// An anonymous user's new address is confirmed at once (`GOTRUE_MAILER_AUTOCONFIRM`).
        public var mailerAutoconfirm: Bool
        /// An anonymous user's new number is confirmed at once (`GOTRUE_SMS_AUTOCONFIRM`).
        public var smsAutoconfirm: Bool
        /// Whether phone numbers may be added (`GOTRUE_EXTERNAL_PHONE_ENABLED`).
        public var phoneEnabled: Bool
        /// Wrong nonces a reauthentication code takes.
        public var maxAttempts: Int
        /// The largest user metadata in bytes of JSON.
        public var userMetadataMaxBytes: Int

        public init(
            password: PasswordSettings, mailerAutoconfirm: Bool, smsAutoconfirm: Bool, phoneEnabled: Bool, maxAttempts: Int,
            userMetadataMaxBytes: Int
        ) {
            self.password = password
            self.mailerAutoconfirm = mailerAutoconfirm
            self.smsAutoconfirm = smsAutoconfirm
            self.phoneEnabled = phoneEnabled
            self.maxAttempts = maxAttempts
            self.userMetadataMaxBytes = userMetadataMaxBytes
        }

        /// The settings of `configuration`.
        public init(_ configuration: AuthConfiguration) {
            self.init(
                password: configuration.password, mailerAutoconfirm: configuration.mailerAutoconfirm,
                smsAutoconfirm: configuration.sms.autoconfirm, phoneEnabled: configuration.sms.enabled,
                maxAttempts: configuration.otp.maxAttempts, userMetadataMaxBytes: configuration.userMetadataMaxBytes)
        }
    }

    let store: any UserAccountStore
    let passwords: Passwords
    /// Sends the codes of an email or phone change.
    let codes: Codes
    let records: Records
    let limiter: RateLimiter
    let settings: Settings
    /// Revokes the providers' access when the account is deleted; `nil`: nothing to revoke.
    let grants: ProviderGrants?

    public init(
        store: any UserAccountStore, passwords: Passwords, codes: Codes, records: Records, limiter: RateLimiter, settings: Settings,
        grants: ProviderGrants? = nil
    ) {
        self.grants = grants
        self.store = store
        self.passwords = passwords
        self.codes = codes
        self.records = records
        self.limiter = limiter
        self.settings = settings
    }

    var time: any TimeSource { records.time }
    var events: AuditEvents { records.events }

    /// `GET /user`: the user with the identities and factors read with it.
    public func user(for principal: Principal) -> User {
        SessionAnswers.wire(principal.user, identities: principal.identities, factors: principal.factors)
    }

    /// `POST /logout`. With an admin token naming another user's session, that user is signed out.
    public func logout(principal: Principal, scope: LogoutScope) async throws {
        let event = events.event(.logout, user: principal.user, details: ["scope": .string(scope.rawValue)])
        switch scope {
        case .global:
            try await store.deleteSessions(userID: principal.user.id, except: nil, audit: [event])
        case .local:
            if let session = principal.session { try await store.deleteSession(id: session.id, audit: [event]) }
        case .others:
            try await store.deleteSessions(userID: principal.user.id, except: principal.session?.id, audit: [event])
        }
    }

    /// With reauthentication required, a sensitive change from a session older than 24 hours (or
    /// from no session) needs a fresh `nonce`; it is spent here.
    func checkReauthentication(_ nonce: String?, principal: Principal) async throws {
        guard settings.password.requireReauthentication, !principal.isAdmin else { return }
        if let session = principal.session, time.now().timeIntervalSince(session.createdAt) < 86400 { return }
        guard let nonce, !nonce.isEmpty else { throw AuthError.reauthenticationNeeded }
        try await spendNonce(nonce, userID: principal.user.id)
    }

    /// Spends the user's newest reauthentication code, `nonce`; `reauthentication_not_valid` when
    /// it is not that code (the attempt counts).
    func spendNonce(_ nonce: String, userID: UUID) async throws {
        // A nonce is a short code: anything longer cannot match and is not worth a lookup.
        guard nonce.utf8.count <= 16 else { throw AuthError.reauthenticationNotValid }
        let outcome = try await store.redeem(
            CodeRedemption(
                selector: .newest(userID: userID, kinds: [.reauthentication]), proof: .code(nonce), completion: .nonce,
                maxAttempts: settings.maxAttempts, client: nil, records: records), limits: [])
        guard case .redeemed = outcome else { throw AuthError.reauthenticationNotValid }
    }
}
