import Foundation
import LatchkeyCore
import Testing

@testable import LatchkeyServer

/// Issue #35: a configuration written for GoTrue keeps GoTrue's defaults; a native one keeps
/// Latchkey's. Each row pins one default in both profiles, read as `latchkey serve` reads it.
@Suite struct ProfileTests {
    /// (setting, what it reads as in a configuration, Latchkey's default, GoTrue's default)
    static let table: [(String, @Sendable (ServerConfiguration) -> String, String, String)] = [
        ("password-min-length", { "\($0.auth.password.minLength)" }, "15", "6"),
        ("password-block-common", { "\($0.auth.password.blockCommon)" }, "true", "false"),
        ("otp-exp", { "\($0.auth.otp.expiry)" }, "600", "86400"),
        ("otp-max-attempts", { "\($0.auth.otp.maxAttempts)" }, "5", "\(Int.max)"),
        ("mfa-max-attempts", { "\($0.auth.mfa.maxAttempts)" }, "5", "\(Int.max)"),
        ("oauth-server-pkce-plain", { "\($0.auth.oauthFlow.allowsPlainPKCE)" }, "false", "true"),
        ("sms-otp-exp", { "\($0.auth.sms.expiry)" }, "300", "60"),
        ("phone-enabled", { "\($0.auth.sms.enabled)" }, "true", "false"),
        ("rate-limit-per-ip", { "\(!$0.auth.rateLimits.tokenPerIP.isOff)" }, "true", "false"),
        ("rate-limit-otp-per-hour", { Self.limit($0.auth.rateLimits.otpPerIPHourly) }, "60/3600", "off"),
        ("rate-limit-email-sent", { Self.limit($0.auth.rateLimits.emailSent) }, "1000/3600", "30/3600"),
        ("rate-limit-email-per-address", { Self.limit($0.auth.rateLimits.emailPerAddress) }, "10/3600", "off"),
        ("rate-limit-signin-failures", { Self.limit($0.auth.rateLimits.signInFailuresPerAccount) }, "10/900", "off"),
        ("rate-limit-sms-sent", { Self.limit($0.auth.rateLimits.smsSent) }, "100/3600", "30/3600"),
        ("rate-limit-sms-per-number", { Self.limit($0.auth.rateLimits.smsPerNumber) }, "5/3600", "off"),
        ("refresh-reuse-interval", { "\($0.auth.sessions.refreshReuseInterval)" }, "10", "0"),
        // The same in both: GoTrue's default, or stricter than GoTrue and breaking no client.
        ("otp-length", { "\($0.auth.otp.length)" }, "6", "6"),
        ("smtp-max-frequency", { "\($0.auth.otp.sendFrequency)" }, "60", "60"),
        ("jwt-exp", { "\($0.auth.jwt.expiry)" }, "3600", "3600"),
        ("link-confirmation-page", { "\($0.auth.linkConfirmationPage)" }, "true", "true"),
        ("mailer-secure-email-change", { "\($0.auth.secureEmailChange)" }, "true", "true"),
        ("mfa-max-enrolled-factors", { "\($0.auth.mfa.maxEnrolledFactors)" }, "10", "10"),
        ("flow-state-expiry", { "\($0.auth.flowStateExpiry)" }, "300", "300"),
    ]

    static func limit(_ limit: RateLimit) -> String { limit.isOff ? "off" : "\(limit.count)/\(limit.period)" }

    @Test(arguments: table.map(\.0))
    func eachDefaultInBothProfiles(setting: String) throws {
        let (_, read, strict, goTrue) = try #require(Self.table.first { $0.0 == setting })
        #expect(read(try ServerConfiguration.load(environment: [:])) == strict)
        #expect(read(try ServerConfiguration.load(environment: ["LATCHKEY_PROFILE": "strict"])) == strict)
        #expect(read(try ServerConfiguration.load(environment: ["LATCHKEY_PROFILE": "gotrue"])) == goTrue)
        // Any of GoTrue's names, even empty as a compose file leaves them, means GoTrue's profile.
        #expect(read(try ServerConfiguration.load(environment: ["GOTRUE_SMS_TWILIO_ACCOUNT_SID": ""])) == goTrue)
        #expect(read(try ServerConfiguration.load(environment: ["API_EXTERNAL_URL": "https://auth.example.com"])) == goTrue)
        #expect(read(try ServerConfiguration.load(environment: ["GOTRUE_SITE_URL": "https://x", "LATCHKEY_PROFILE": "strict"])) == strict)
    }

    /// Every default GoTrue's profile changes is pinned above and is a setting of the catalogue.
    @Test func theTableCoversEveryProfileDefault() {
        let pinned = Set(Self.table.map(\.0))
        let goTrueKeys = Setting.all.filter { $0.goTrueDefault != nil }.map(\.key)
        #expect(goTrueKeys.count == 16)
        for key in goTrueKeys { #expect(pinned.contains(key), "\(key) has a GoTrue default and no row") }
    }

    /// An operator's value wins in either profile; per-IP limits count under GoTrue's when a client
    /// address can be trusted.
    @Test func setValuesWinAndPerIPLimitsFollowTheTrustedAddress() throws {
        let set = try ServerConfiguration.load(environment: [
            "GOTRUE_PASSWORD_MIN_LENGTH": "10", "LATCHKEY_RATE_LIMIT_SIGNIN_FAILURES": "20", "LATCHKEY_RATE_LIMIT_EMAIL_PER_ADDRESS": "off",
        ])
        #expect(set.profile == .gotrue && set.auth.password.minLength == 10)
        #expect(set.auth.rateLimits.signInFailuresPerAccount == RateLimit(count: 20, period: 900))
        #expect(
            try ServerConfiguration.load(environment: ["LATCHKEY_RATE_LIMIT_EMAIL_PER_ADDRESS": "off"]).auth.rateLimits.emailPerAddress
                .isOff)
        for (environment, counted) in [
            (["GOTRUE_RATE_LIMIT_HEADER": "X-Forwarded-For"], true),
            (["LATCHKEY_PROFILE": "gotrue", "LATCHKEY_TRUSTED_PROXIES": "10.0.0.0/8"], true),
            (["LATCHKEY_PROFILE": "gotrue", "LATCHKEY_RATE_LIMIT_PER_IP": "true"], true),
            (["LATCHKEY_RATE_LIMIT_PER_IP": "false"], false),
            (["GOTRUE_SITE_URL": "https://x"], false),
        ] {
            let limits = try ServerConfiguration.load(environment: environment).auth
            let all = [
                limits.rateLimits.tokenPerIP, limits.rateLimits.verifyPerIP, limits.rateLimits.otpPerIP, limits.rateLimits.mfaPerIP,
                limits.rateLimits.anonymousPerIP, limits.passkeys.perIP,
            ]
            #expect(all.allSatisfy { $0.isOff != counted }, "\(environment)")
        }
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.load(environment: ["LATCHKEY_PROFILE": "lenient"]) }
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.load(environment: ["LATCHKEY_RATE_LIMIT_PER_IP": "maybe"]) }
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.load(environment: ["LATCHKEY_RATE_LIMIT_SMS_SENT": "some"]) }
    }

    /// `latchkey config check`'s list: nothing at Latchkey's defaults; under GoTrue's, each weaker
    /// default with the variable that hardens it, and hardening them all empties the list.
    @Test func theHardeningListNamesWhatHardensEachWeakerSetting() throws {
        #expect(try ServerConfiguration.load(environment: [:]).hardenings.isEmpty)
        let goTrue = try ServerConfiguration.load(environment: ["GOTRUE_JWT_SECRET": "too-short"])
        let found = goTrue.hardenings.map(\.setting)
        #expect(
            found == [
                "jwt-secret", "otp-exp", "otp-max-attempts", "password-min-length", "password-block-common", "rate-limit-per-ip",
                "rate-limit-email-per-address", "rate-limit-signin-failures", "rate-limit-sms-per-number", "mfa-max-attempts",
            ])
        // Following the remedies empties the list (per-IP limits on reveal the hourly one).
        var hardened = ["GOTRUE_JWT_SECRET": String(repeating: "k", count: 40)]
        var remaining = goTrue.hardenings
        for _ in 0..<3 where !remaining.isEmpty {
            for finding in remaining where finding.setting != "jwt-secret" {
                // The last of the alternatives is a plain assignment.
                let assignment = try #require(finding.remedy.components(separatedBy: ", or ").last).split(separator: "=", maxSplits: 1)
                #expect(assignment.count == 2 && !assignment[1].contains("<"), "\(finding.remedy)")
                hardened[String(assignment[0])] = String(assignment[1])
            }
            remaining = try ServerConfiguration.load(environment: hardened).hardenings
        }
        #expect(remaining.isEmpty, "\(remaining)")
    }
}
