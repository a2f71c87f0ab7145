import Foundation
import LatchkeyCore
import Testing

@testable import LatchkeyServer

/// The typed catalogue: each setting's default, range and GoTrue default are written once, in its
/// declaration, and read from there.
@Suite struct SettingTests {
    @Test func everyDefaultReadsBackAsItselfWithinItsRange() {
        #expect(Setting.declarations.count == Setting.all.count)
        for declaration in Setting.declarations {
            #expect(declaration.defaultsReadBack, "\(declaration.entry.key)'s default is out of its range or shown otherwise than read")
        }
    }

    @Test func aDefaultOutsideItsRangeDoesNotReadBack() {
        let port = Setting.count("port", ["PORT"], default: 70000, in: 0...65535, summary: "")
        #expect(!port.defaultsReadBack)
        let offForGoTrue = Setting.limit("rate-limit-x", [], default: 30, per: 3600, goTrue: .off, summary: "")
        #expect(offForGoTrue.defaultsReadBack)
        let badGoTrue = Setting.count("mfa-max-attempts", [], default: 5, in: 0...1000, goTrue: 5000, summary: "")
        #expect(!badGoTrue.defaultsReadBack)
    }

    /// Unset, set, set out of range, GoTrue's profile, and a flag beating the environment, read
    /// through one path each.
    @Test func theReaderTakesAFlagThenTheEnvironmentThenTheProfileThenTheDefault() throws {
        var reader = SettingReader(environment: [:], overrides: [:])
        // (The setting itself, not a key path: see SettingReader's subscript.)
        #expect(try reader[Setting.otpMaxAttempts] == 5)
        #expect(try reader.ifSet(Setting.otpMaxAttempts) == nil)
        reader.profile = .gotrue
        #expect(try reader[Setting.otpMaxAttempts] == 0)
        #expect(try reader.ifSet(Setting.otpMaxAttempts) == 0)
        #expect(try reader.explicit(Setting.otpMaxAttempts) == nil)
        reader = SettingReader(environment: ["GOTRUE_PASSWORD_MIN_LENGTH": "8", "LATCHKEY_PORT": "80"], overrides: ["port": "81"])
        #expect(try reader[Setting.passwordMinLength] == 8 && reader[Setting.port] == 81)
        #expect(try reader[Setting.rateLimitEmailSent] == RateLimit(count: 1000, period: 3600))
        for (environment, problem) in [
            (["LATCHKEY_PORT": "65536"], "port must be 0–65535, not 65536"),
            (["LATCHKEY_MFA_MAX_ATTEMPTS": "1001"], "mfa-max-attempts must be 0–1000, not 1001"),
            (["LATCHKEY_HOOK_TIMEOUT": "61"], "hook-timeout must be 1–60, not 61"),
            (["LATCHKEY_HTTP_IDLE_TIMEOUT": "0s"], "http-idle-timeout must be at least 1 second, not 0"),
            (["LATCHKEY_ADMIN_CONSOLE_SESSION": "1m30s"], nil),
            (["LATCHKEY_ADMIN_CONSOLE_SESSION": "30"], "admin-console-session must be 60–86400, not 30"),
            (["GOTRUE_RATE_LIMIT_EMAIL_SENT": "100/30m"], nil),
            (["GOTRUE_RATE_LIMIT_EMAIL_SENT": "100/0s"], "rate-limit-email-sent must be a count, a count/duration such as 100/30m, or off"),
            (["GOTRUE_RATE_LIMIT_OTP": "30.0"], nil),
            (["LATCHKEY_PASSWORD_SCRYPT_LOG_N": "-1"], "password-scrypt-log-n must be a whole number ≥ 0, not '-1'"),
            (["LATCHKEY_PASSKEY_ENABLED": "maybe"], "passkey-enabled must be true or false, not 'maybe'"),
        ] {
            do {
                _ = try ServerConfiguration.load(environment: environment)
                #expect(problem == nil, "\(environment) started")
            } catch let error as ConfigurationError {
                #expect(problem.map { error.description.hasPrefix($0) } == true, "\(environment): \(error.description)")
            }
        }
    }
}
