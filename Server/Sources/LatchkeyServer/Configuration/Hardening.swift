import Foundation
import LatchkeyCore

/// A setting whose value is weaker than Latchkey recommends, and the variable that hardens it:
/// what `latchkey config check` prints and the start-up banner lists under the `gotrue` profile.
public struct Hardening: Sendable, Equatable {
    /// The setting's key (docs/configuration.md).
    public let setting: String
    /// Its value now, as an operator would write it.
    public let value: String
    /// What the value allows.
    public let risk: String
    /// The assignment that hardens it: `LATCHKEY_PASSWORD_MIN_LENGTH=15`.
    public let remedy: String
}

extension ServerConfiguration {
    /// Every setting weaker than Latchkey's recommendation (the strict profile's default), in the
    /// order of docs/configuration.md. Empty for a natively configured instance left at its defaults.
    public var hardenings: [Hardening] {
        var found: [Hardening] = []
        func weak(_ setting: String, _ value: String, _ risk: String, _ remedy: String) {
            found.append(Hardening(setting: setting, value: value, risk: risk, remedy: remedy))
        }
        func cap(_ value: Int) -> String { AttemptCap.told(value).map(String.init) ?? "0 (none)" }
        func limit(_ limit: RateLimit) -> String { limit.isOff ? "off" : String(limit.count) }
        if let jwtSecret, jwtSecret.utf8.count < 32 {
            weak(
                "jwt-secret", "\(jwtSecret.utf8.count) characters",
                "a short HS256 secret can be guessed offline from any access token, and with it the server secret derived from it",
                "GOTRUE_JWT_SECRET=<32 or more random characters>, or LATCHKEY_SERVER_SECRET as well")
        }
        if !auth.linkConfirmationPage {
            weak(
                "link-confirmation-page", "false", "mail scanners that follow links spend them before the user can",
                "LATCHKEY_LINK_CONFIRMATION_PAGE=true")
        }
        if !auth.secureEmailChange {
            weak(
                "mailer-secure-email-change", "false", "a stolen session moves the account to another address without the owner",
                "GOTRUE_MAILER_SECURE_EMAIL_CHANGE_ENABLED=true")
        }
        if auth.otp.expiry > 600 {
            weak(
                "otp-exp", "\(auth.otp.expiry)", "an emailed code or link stays good for \(auth.otp.expiry / 60) minutes",
                "LATCHKEY_OTP_EXP=600")
        }
        if auth.otp.maxAttempts > 5 {
            weak(
                "otp-max-attempts", cap(auth.otp.maxAttempts), "a code can be guessed as often as the per-IP limits allow",
                "LATCHKEY_OTP_MAX_ATTEMPTS=5")
        }
        if auth.password.minLength < 15 {
            weak(
                "password-min-length", "\(auth.password.minLength)",
                "passwords of \(auth.password.minLength) characters are accepted (NIST SP 800-63B-4: 15 for password-only accounts)",
                "LATCHKEY_PASSWORD_MIN_LENGTH=15")
        }
        if !auth.password.blockCommon {
            weak(
                "password-block-common", "false", "the most common passwords are accepted", "LATCHKEY_PASSWORD_BLOCK_COMMON=true")
        }
        if auth.password.scryptLogN < 17 {
            weak(
                "password-scrypt-log-n", "\(auth.password.scryptLogN)", "stolen password hashes are cheaper to crack than OWASP's minimum",
                "LATCHKEY_PASSWORD_SCRYPT_LOG_N=17")
        }
        if auth.rateLimits.tokenPerIP.isOff {
            weak(
                "rate-limit-per-ip", "false", "one client may send any number of sign-ins, codes and verifications",
                "LATCHKEY_TRUSTED_PROXIES=<your proxies' network> (or GOTRUE_RATE_LIMIT_HEADER), or LATCHKEY_RATE_LIMIT_PER_IP=true")
        } else if auth.rateLimits.otpPerIPHourly.isOff {
            weak(
                "rate-limit-otp-per-hour", "off", "a few clients can spend the whole email budget in an hour",
                "LATCHKEY_RATE_LIMIT_OTP_PER_HOUR=60")
        }
        if auth.rateLimits.emailPerAddress.isOff {
            weak(
                "rate-limit-email-per-address", "off", "one inbox can be flooded up to the global email limit",
                "LATCHKEY_RATE_LIMIT_EMAIL_PER_ADDRESS=10")
        }
        if auth.rateLimits.signInFailuresPerAccount.isOff || auth.rateLimits.signInFailuresPerAccount.count > 10 {
            weak(
                "rate-limit-signin-failures", limit(auth.rateLimits.signInFailuresPerAccount),
                "one account's password can be guessed from many addresses at once", "LATCHKEY_RATE_LIMIT_SIGNIN_FAILURES=10")
        }
        if auth.rateLimits.smsPerNumber.isOff {
            weak(
                "rate-limit-sms-per-number", "off", "one number can be sent SMS up to the global SMS limit (toll fraud)",
                "LATCHKEY_RATE_LIMIT_SMS_PER_NUMBER=5")
        }
        if auth.mfa.maxAttempts > 5 {
            weak(
                "mfa-max-attempts", cap(auth.mfa.maxAttempts),
                "a TOTP or phone factor's code can be guessed as often as the MFA rate limit allows",
                "LATCHKEY_MFA_MAX_ATTEMPTS=5")
        }
        return found
    }
}

extension ServerConfiguration {
    /// One line: the profile in force and why.
    public var profileSummary: String {
        switch profile {
        case .strict: "profile: strict (Latchkey's defaults)"
        case .gotrue:
            "profile: gotrue (GoTrue's defaults, for a configuration written for GoTrue; LATCHKEY_PROFILE=strict for Latchkey's)"
        }
    }
}
