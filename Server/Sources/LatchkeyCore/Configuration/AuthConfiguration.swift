import Foundation
import LatchkeyWebAuthn

/// Everything the domain needs to know about policy, read once at start.
///
/// The server builds this from flags, `LATCHKEY_*` and `GOTRUE_*` variables and defaults
/// (`docs/configuration.md` lists every key); tests build it directly.
public struct AuthConfiguration: Sendable {
    /// The app's URL: the default redirect after a link is followed.
    public var siteURL: String
    /// The URL this server is reached at, used to build links in emails.
    public var externalURL: String
    /// Redirect targets allowed besides `siteURL`; `*` and `**` globs as GoTrue.
    public var uriAllowList: [String]
    /// The application's name, used in messages.
    public var appName: String
    /// Whether new users may sign up.
    public var disableSignup: Bool
    /// Whether email addresses count as confirmed at sign-up.
    public var mailerAutoconfirm: Bool
    /// Whether `GET /verify` shows a confirmation page (scanner-safe) instead of redirecting at once.
    public var linkConfirmationPage: Bool
    /// Whether an email change needs confirming from both addresses (`GOTRUE_MAILER_SECURE_EMAIL_CHANGE_ENABLED`).
    public var secureEmailChange: Bool
    /// Seconds a PKCE authorization code waits to be exchanged
    /// (`GOTRUE_EXTERNAL_FLOW_STATE_EXPIRY_DURATION`).
    public var flowStateExpiry: Int
    /// The largest `user_metadata`, in bytes of JSON (`LATCHKEY_USER_METADATA_MAX_BYTES`): it is
    /// copied into every access token, and sign-ups set it without an account.
    public var userMetadataMaxBytes: Int

    public var jwt: JWTSettings
    public var otp: OTPSettings
    public var password: PasswordSettings
    public var sessions: SessionSettings
    public var rateLimits: RateLimitSettings
    /// Phone numbers and SMS codes.
    public var sms: SMSSettings
    /// Second factors.
    public var mfa: MFASettings
    /// Whether `POST /signup` with neither an email nor a phone makes an anonymous user
    /// (`GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED`).
    public var anonymousUsers = false
    /// Days an anonymous user is kept after it was made; 0 keeps them (`latchkey users
    /// cleanup-anonymous` deletes older ones on demand).
    public var anonymousUserRetentionDays = 0
    /// Sign-in with other providers' identities.
    public var external = ExternalSettings()
    /// Passkeys (`/passkeys/*`); off by default, as in GoTrue.
    public var passkeys = Passkeys.Settings(
        enabled: false, relyingParty: RelyingParty(id: "localhost", origins: []), displayName: "Latchkey")
    /// The OAuth 2.1 server for other applications (`GOTRUE_OAUTH_SERVER_*`); off by default, as in GoTrue.
    public var oauthServer = OAuthClients.Settings()
    /// The OAuth server's authorization flow.
    public var oauthFlow = OAuthServer.Settings()
    /// Sign-in with a wallet (`grant_type=web3`); both chains off by default, as in GoTrue.
    public var web3 = Web3SignIn.Settings()

    public init(
        siteURL: String = "http://localhost:3000", externalURL: String = "http://127.0.0.1:9999",
        uriAllowList: [String] = [], appName: String = "Latchkey", disableSignup: Bool = false,
        mailerAutoconfirm: Bool = false, linkConfirmationPage: Bool = true, secureEmailChange: Bool = true, flowStateExpiry: Int = 300,
        userMetadataMaxBytes: Int = 16384, jwt: JWTSettings = .init(),
        otp: OTPSettings = .init(), password: PasswordSettings = .init(), sessions: SessionSettings = .init(),
        rateLimits: RateLimitSettings = .init(),
        sms: SMSSettings = .init(), mfa: MFASettings = .init()
    ) {
        self.mfa = mfa
        self.sms = sms
        self.siteURL = siteURL
        self.externalURL = externalURL
        self.uriAllowList = uriAllowList
        self.appName = appName
        self.disableSignup = disableSignup
        self.mailerAutoconfirm = mailerAutoconfirm
        self.linkConfirmationPage = linkConfirmationPage
        self.secureEmailChange = secureEmailChange
        self.flowStateExpiry = flowStateExpiry
        self.userMetadataMaxBytes = userMetadataMaxBytes
        self.jwt = jwt
        self.otp = otp
        self.password = password
        self.sessions = sessions
        self.rateLimits = rateLimits
    }
}

/// Access-token settings.
public struct JWTSettings: Sendable {
    /// Lifetime of an access token in seconds (`GOTRUE_JWT_EXP`).
    public var expiry: Int
    /// The `aud` claim (`GOTRUE_JWT_AUD`).
    public var audience: String
    /// The `iss` claim (`GOTRUE_JWT_ISSUER`); empty means the external URL.
    public var issuer: String
    /// Roles that make a token an admin token (`GOTRUE_JWT_ADMIN_ROLES`).
    public var adminRoles: [String]

    public init(
        expiry: Int = 3600, audience: String = "authenticated", issuer: String = "",
        adminRoles: [String] = ["service_role", "supabase_admin"]
    ) {
        self.expiry = expiry
        self.audience = audience
        self.issuer = issuer
        self.adminRoles = adminRoles
    }

    /// The `iss` of every token this server signs: ``issuer``, else the external URL (GoTrue's
    /// default).
    public func issuerClaim(externalURL: String) -> String {
        issuer.isEmpty ? externalURL : issuer
    }
}

/// One-time code settings.
public struct OTPSettings: Sendable {
    /// Seconds a code or link stays valid (`GOTRUE_MAILER_OTP_EXP`).
    public var expiry: Int
    /// Digits in a code, 6 to 10 (`GOTRUE_MAILER_OTP_LENGTH`).
    public var length: Int
    /// Wrong submissions a code survives before it is void.
    public var maxAttempts: Int
    /// Seconds between two messages to one user (`GOTRUE_SMTP_MAX_FREQUENCY`).
    public var sendFrequency: Int

    public init(expiry: Int = 600, length: Int = 6, maxAttempts: Int = 5, sendFrequency: Int = 60) {
        self.expiry = expiry
        self.length = length
        self.maxAttempts = maxAttempts
        self.sendFrequency = sendFrequency
    }
}

/// Password policy and hashing cost.
public struct PasswordSettings: Sendable {
    /// Fewest characters (`GOTRUE_PASSWORD_MIN_LENGTH`).
    public var minLength: Int
    /// Most UTF-8 bytes, checked before any hashing.
    public var maxBytes: Int
    /// Refuse passwords on the common-password list.
    public var blockCommon: Bool
    /// scrypt cost as log2(N) (17 is OWASP's N=2^17).
    public var scryptLogN: Int
    /// scrypt block size r.
    public var scryptR: Int
    /// scrypt parallelism p.
    public var scryptP: Int
    /// Whether `PUT /user` needs `current_password` to change an existing password.
    public var requireCurrentPassword: Bool
    /// Whether changing the password or the email address from a session older than 24 hours
    /// needs a `nonce` from `GET /reauthenticate`.
    public var requireReauthentication: Bool

    public init(
        minLength: Int = 15, maxBytes: Int = 1024, blockCommon: Bool = true, scryptLogN: Int = 17,
        scryptR: Int = 8, scryptP: Int = 1, requireCurrentPassword: Bool = false, requireReauthentication: Bool = false
    ) {
        self.requireReauthentication = requireReauthentication
        self.minLength = minLength
        self.maxBytes = maxBytes
        self.blockCommon = blockCommon
        self.scryptLogN = scryptLogN
        self.scryptR = scryptR
        self.scryptP = scryptP
        self.requireCurrentPassword = requireCurrentPassword
    }
}

/// Session lifetime and refresh-token rotation.
public struct SessionSettings: Sendable {
    /// Seconds in which a rotated refresh token still returns the same successor
    /// (`GOTRUE_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL`).
    public var refreshReuseInterval: Int
    /// Longest life of a session in seconds; 0 means no limit (`GOTRUE_SESSIONS_TIMEBOX`).
    public var timebox: Int
    /// Seconds without a refresh after which a session ends; 0 means never
    /// (`GOTRUE_SESSIONS_INACTIVITY_TIMEOUT`).
    public var inactivityTimeout: Int

    public init(refreshReuseInterval: Int = 10, timebox: Int = 0, inactivityTimeout: Int = 0) {
        self.refreshReuseInterval = refreshReuseInterval
        self.timebox = timebox
        self.inactivityTimeout = inactivityTimeout
    }
}

/// A limit of `count` events per `period` seconds.
public struct RateLimit: Sendable, Equatable {
    public var count: Int
    public var period: Int

    public init(count: Int, period: Int) {
        self.count = count
        self.period = period
    }

    /// A limit that is not counted at all (GoTrue's per-IP limits without a trusted header).
    public static let off = RateLimit(count: .max, period: 1)

    /// Whether this is ``off``: nothing counts against it and nothing is stored for it.
    public var isOff: Bool { count == .max }
}

/// An attempt cap (wrong submissions of one code, wrong TOTP codes in a row): a count, or none
/// (`Int.max`: GoTrue's profile), which a setting writes as 0.
public enum AttemptCap {
    public static let none = Int.max

    /// A configured cap: 0 is none.
    public static func configured(_ value: Int) -> Int { value == 0 ? none : value }

    /// A cap, or the attempts it leaves, as a client is told them: nothing when there is no cap.
    public static func told(_ attempts: Int) -> Int? { attempts > none / 2 ? nil : attempts }
}

/// Rate limits, all kept in the database so that they hold across instances.
public struct RateLimitSettings: Sendable {
    /// `/token` requests per client IP (`GOTRUE_RATE_LIMIT_TOKEN_REFRESH`, per 5 minutes).
    public var tokenPerIP: RateLimit
    /// `/verify` requests per client IP (`GOTRUE_RATE_LIMIT_VERIFY`, per 5 minutes).
    public var verifyPerIP: RateLimit
    /// `/signup`, `/otp`, `/resend`, `PUT /user` per client IP (`GOTRUE_RATE_LIMIT_OTP`, per 5 minutes).
    public var otpPerIP: RateLimit
    /// The same requests per client IP per hour (`LATCHKEY_RATE_LIMIT_OTP_PER_HOUR`): well under
    /// `emailSent`, so a few addresses cannot spend every user's email budget.
    public var otpPerIPHourly: RateLimit
    /// Emails sent in total (`GOTRUE_RATE_LIMIT_EMAIL_SENT`, per hour).
    public var emailSent: RateLimit
    /// Emails sent to one address (`LATCHKEY_RATE_LIMIT_EMAIL_PER_ADDRESS`, per hour).
    public var emailPerAddress: RateLimit
    /// Failed password sign-ins per account (`LATCHKEY_RATE_LIMIT_SIGNIN_FAILURES`, per 15 minutes).
    public var signInFailuresPerAccount: RateLimit
    /// SMS in total, all instances (`GOTRUE_RATE_LIMIT_SMS_SENT`).
    public var smsSent: RateLimit
    /// SMS to one number.
    public var smsPerNumber: RateLimit
    /// MFA challenges and verifications per client IP
    /// (`GOTRUE_MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY`, per minute).
    public var mfaPerIP: RateLimit
    /// Anonymous sign-ins per client IP (`GOTRUE_RATE_LIMIT_ANONYMOUS_USERS`, per hour).
    public var anonymousPerIP = RateLimit(count: 30, period: 3600)

    public init(
        tokenPerIP: RateLimit = .init(count: 150, period: 300), verifyPerIP: RateLimit = .init(count: 30, period: 300),
        otpPerIP: RateLimit = .init(count: 30, period: 300), otpPerIPHourly: RateLimit = .init(count: 60, period: 3600),
        emailSent: RateLimit = .init(count: 1000, period: 3600),
        emailPerAddress: RateLimit = .init(count: 10, period: 3600),
        signInFailuresPerAccount: RateLimit = .init(count: 10, period: 900), smsSent: RateLimit = .init(count: 100, period: 3600),
        smsPerNumber: RateLimit = .init(count: 5, period: 3600), mfaPerIP: RateLimit = .init(count: 15, period: 60)
    ) {
        self.mfaPerIP = mfaPerIP
        self.smsSent = smsSent
        self.smsPerNumber = smsPerNumber
        self.tokenPerIP = tokenPerIP
        self.verifyPerIP = verifyPerIP
        self.otpPerIP = otpPerIP
        self.otpPerIPHourly = otpPerIPHourly
        self.emailSent = emailSent
        self.emailPerAddress = emailPerAddress
        self.signInFailuresPerAccount = signInFailuresPerAccount
    }

    /// Turns every per-client-IP limit off (GoTrue counts them only with a trusted header).
    public mutating func turnPerIPLimitsOff() {
        tokenPerIP = .off
        verifyPerIP = .off
        otpPerIP = .off
        otpPerIPHourly = .off
        mfaPerIP = .off
        anonymousPerIP = .off
    }

    /// Limits so high that tests and benchmarks never meet them.
    public static var unlimited: RateLimitSettings {
        let huge = RateLimit(count: 1_000_000_000, period: 60)
        var settings = RateLimitSettings(
            tokenPerIP: huge, verifyPerIP: huge, otpPerIP: huge, otpPerIPHourly: huge, emailSent: huge, emailPerAddress: huge,
            signInFailuresPerAccount: huge, smsSent: huge, smsPerNumber: huge, mfaPerIP: huge)
        settings.anonymousPerIP = huge
        return settings
    }
}

/// TOTP second factors (RFC 6238).
public struct MFASettings: Sendable {
    /// Whether users may enrol TOTP factors (`GOTRUE_MFA_TOTP_ENROLL_ENABLED`).
    public var totpEnrollEnabled: Bool
    /// Whether TOTP factors may be verified (`GOTRUE_MFA_TOTP_VERIFY_ENABLED`).
    public var totpVerifyEnabled: Bool
    /// Factors a user may have, verified or not (`GOTRUE_MFA_MAX_ENROLLED_FACTORS`).
    public var maxEnrolledFactors: Int
    /// Verified factors a user may have before enrolling another (`GOTRUE_MFA_MAX_VERIFIED_FACTORS`).
    public var maxVerifiedFactors = 10
    /// Seconds a challenge stays open (`GOTRUE_MFA_CHALLENGE_EXPIRY_DURATION`).
    public var challengeExpiry: Int
    /// Seconds after which an unverified factor that was never challenged goes, at the user's next
    /// enrolment (`GOTRUE_MFA_FACTOR_EXPIRY_DURATION`, at least 300).
    public var factorExpiry = 300
    /// Wrong codes in a row after which a factor locks (`LATCHKEY_MFA_MAX_ATTEMPTS`).
    public var maxAttempts: Int
    /// Seconds a locked factor stays locked (`LATCHKEY_MFA_LOCKOUT`).
    public var lockout: Int
    /// Phone factors: codes by SMS or WhatsApp (`GOTRUE_MFA_PHONE_*`).
    public var phone = PhoneFactorSettings()
    /// WebAuthn factors: security keys (`GOTRUE_MFA_WEB_AUTHN_*`), with the passkeys' relying party.
    public var webAuthn = WebAuthnFactorSettings()

    public init(
        totpEnrollEnabled: Bool = true, totpVerifyEnabled: Bool = true, maxEnrolledFactors: Int = 10, challengeExpiry: Int = 300,
        maxAttempts: Int = 5, lockout: Int = 900
    ) {
        self.totpEnrollEnabled = totpEnrollEnabled
        self.totpVerifyEnabled = totpVerifyEnabled
        self.maxEnrolledFactors = maxEnrolledFactors
        self.challengeExpiry = challengeExpiry
        self.maxAttempts = maxAttempts
        self.lockout = lockout
    }
}

/// WebAuthn factors (`GOTRUE_MFA_WEB_AUTHN_*`): off unless the operator turns them on, as on GoTrue.
public struct WebAuthnFactorSettings: Sendable {
    /// Whether users may enrol WebAuthn factors (`GOTRUE_MFA_WEB_AUTHN_ENROLL_ENABLED`).
    public var enrollEnabled: Bool
    /// Whether WebAuthn factors may be challenged and verified (`GOTRUE_MFA_WEB_AUTHN_VERIFY_ENABLED`).
    public var verifyEnabled: Bool
    /// Whether a key counts only with the user verified on it (a PIN, a fingerprint), not only
    /// present (a touch): `LATCHKEY_MFA_WEB_AUTHN_USER_VERIFICATION=required`.
    public var requireUserVerification: Bool

    public init(enrollEnabled: Bool = false, verifyEnabled: Bool = false, requireUserVerification: Bool = false) {
        self.enrollEnabled = enrollEnabled
        self.verifyEnabled = verifyEnabled
        self.requireUserVerification = requireUserVerification
    }
}

/// Phone factors (`GOTRUE_MFA_PHONE_*`): off unless the operator turns them on, as on GoTrue.
public struct PhoneFactorSettings: Sendable {
    /// Whether users may enrol phone factors (`GOTRUE_MFA_PHONE_ENROLL_ENABLED`).
    public var enrollEnabled: Bool
    /// Whether phone factors may be challenged and verified (`GOTRUE_MFA_PHONE_VERIFY_ENABLED`).
    public var verifyEnabled: Bool
    /// Digits in a code (`GOTRUE_MFA_PHONE_OTP_LENGTH`, 6–10).
    public var length: Int
    /// Seconds between two challenges of one factor (`GOTRUE_MFA_PHONE_MAX_FREQUENCY`).
    public var sendFrequency: Int
    /// The message, with `{{code}}` (GoTrue's `{{ .Code }}` read as it) (`GOTRUE_MFA_PHONE_TEMPLATE`);
    /// `nil`: GoTrue's "Your code is {{code}}".
    public var template: String?

    public init(enrollEnabled: Bool = false, verifyEnabled: Bool = false, length: Int = 6, sendFrequency: Int = 60, template: String? = nil)
    {
        self.enrollEnabled = enrollEnabled
        self.verifyEnabled = verifyEnabled
        self.length = length
        self.sendFrequency = sendFrequency
        self.template = template
    }
}
