import Foundation
import LatchkeyAPI

/// `POST /signup` with an email or a phone and a password (``AnonymousUsers`` takes those with
/// neither).
///
/// Anti-enumeration as GoTrue: the password is hashed for a known address too, and signing up
/// again with a confirmed address (or number) answers like a new sign-up (a user with a fresh id
/// and no identities) while the owner is emailed instead; with autoconfirm on it answers
/// `user_already_exists`. An unconfirmed address gets a new confirmation code; its password is
/// not changed. Of sign-ups racing for one address, one stores its user; the others answer as
/// for a repeat.
public struct SignUp: Sendable {
    /// What sign-up is configured with.
    public struct Settings: Sendable {
        /// No new users (`GOTRUE_DISABLE_SIGNUP`).
        public var disableSignup: Bool
        /// Email sign-ups are confirmed at once and signed in (`GOTRUE_MAILER_AUTOCONFIRM`).
        public var mailerAutoconfirm: Bool
        /// Phone sign-ups are confirmed at once and signed in (`GOTRUE_SMS_AUTOCONFIRM`).
        public var smsAutoconfirm: Bool
        /// Whether phone numbers may sign up (`GOTRUE_EXTERNAL_PHONE_ENABLED`).
        public var phoneEnabled: Bool
        /// The largest `data` (user metadata) in bytes of JSON.
        public var userMetadataMaxBytes: Int

        public init(disableSignup: Bool, mailerAutoconfirm: Bool, smsAutoconfirm: Bool, phoneEnabled: Bool, userMetadataMaxBytes: Int) {
            self.disableSignup = disableSignup
            self.mailerAutoconfirm = mailerAutoconfirm
            self.smsAutoconfirm = smsAutoconfirm
            self.phoneEnabled = phoneEnabled
            self.userMetadataMaxBytes = userMetadataMaxBytes
        }

        /// The settings of `configuration`.
        public init(_ configuration: AuthConfiguration) {
            self.init(
                disableSignup: configuration.disableSignup, mailerAutoconfirm: configuration.mailerAutoconfirm,
                smsAutoconfirm: configuration.sms.autoconfirm, phoneEnabled: configuration.sms.enabled,
                userMetadataMaxBytes: configuration.userMetadataMaxBytes)
        }
    }

    let store: any SignUpStore
    let passwords: Passwords
    /// Makes new users with their first code, and sends codes.
    let codes: Codes
    let records: Records
    let limiter: RateLimiter
    let settings: Settings

    public init(store: any SignUpStore, passwords: Passwords, codes: Codes, records: Records, limiter: RateLimiter, settings: Settings) {
        self.store = store
        self.passwords = passwords
        self.codes = codes
        self.records = records
        self.limiter = limiter
        self.settings = settings
    }

    var time: any TimeSource { records.time }

    /// Signs a just-stored user in by password (autoconfirm): the session and its login event.
    func signIn(_ user: UserRecord, client: ClientInfo, now: Date) async throws -> Session {
        var signedIn = user
        signedIn.lastSignInAt = now
        let session = records.answers.newSession(for: signedIn, method: "password", client: client, now: now)
        try await store.createSession(
            session, user: signedIn,
            audit: [records.events.event(.login, user: signedIn, details: ["method": "password"], client: client)])
        return try await records.answers.answer(user: signedIn, session: session)
    }
}
