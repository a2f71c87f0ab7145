import Foundation
import LatchkeyAPI
import LatchkeyCore
import LatchkeyDelivery
import LatchkeyStore
import Testing

@testable import LatchkeyServer

@Suite struct ConfigurationTests {
    @Test func flagsBeatLatchkeyNamesWhichBeatGoTrueNames() throws {
        let environment = [
            "PORT": "8081", "LATCHKEY_PORT": "7000", "GOTRUE_SITE_URL": "https://app.example", "GOTRUE_JWT_EXP": "900",
            "GOTRUE_SMTP_MAX_FREQUENCY": "2m", "GOTRUE_MAILER_AUTOCONFIRM": "true",
            "GOTRUE_URI_ALLOW_LIST": "myapp://cb, https://*.example",
            "GOTRUE_RATE_LIMIT_VERIFY": "12", "GOTRUE_RATE_LIMIT_HEADER": "X-Forwarded-For",
        ]
        let configuration = try ServerConfiguration.load(environment: environment, overrides: ["port": "6000"])
        #expect(configuration.port == 6000)
        #expect(try ServerConfiguration.load(environment: environment).port == 7000)
        #expect(configuration.auth.siteURL == "https://app.example")
        #expect(configuration.auth.jwt.expiry == 900)
        #expect(configuration.auth.otp.sendFrequency == 120)
        #expect(configuration.auth.mailerAutoconfirm)
        #expect(configuration.auth.uriAllowList == ["myapp://cb", "https://*.example"])
        #expect(configuration.auth.rateLimits.verifyPerIP.count == 12)
    }

    @Test func aPostgresURLChoosesPostgreSQLWithGoTruesNames() throws {
        let configuration = try ServerConfiguration.load(environment: [
            "GOTRUE_DB_DATABASE_URL": "postgres://latchkey:s%40cret@db.internal:6432/app?sslmode=require",
            "GOTRUE_DB_MAX_POOL_SIZE": "25",
        ])
        let postgres = try #require(configuration.postgres)
        #expect(postgres.url.host == "db.internal" && postgres.url.port == 6432)
        #expect(postgres.schema == "auth" && postgres.poolSize == 25 && postgres.tls == "require")
        #expect(configuration.storeDescription == "PostgreSQL at db.internal:6432/app (schema auth)")
        let sqlite = try ServerConfiguration.load(environment: ["DATABASE_URL": "sqlite:///tmp/x.sqlite"])
        #expect(sqlite.postgres == nil && sqlite.storeDescription == "SQLite at /tmp/x.sqlite")
    }

    @Test func defaultsAreSecure() throws {
        let configuration = try ServerConfiguration.load(environment: [:])
        #expect(configuration.port == 9999)
        #expect(configuration.host == "127.0.0.1")
        #expect(configuration.databasePath.hasSuffix("latchkey-data/latchkey.sqlite"))
        #expect(configuration.auth.password.minLength == 15)
        #expect(configuration.auth.password.scryptLogN == 17)
        #expect(configuration.auth.otp.expiry == 600)
        #expect(configuration.auth.otp.maxAttempts == 5)
        #expect(configuration.auth.linkConfirmationPage)
        #expect(!configuration.devMailboxPublic)
        #expect(configuration.trustedIPHeader == nil)
        #expect(configuration.auditRetentionDays == 0)
        #expect(configuration.auth.mfa.maxAttempts == 5 && configuration.auth.mfa.totpEnrollEnabled)
        #expect(configuration.httpTimeouts == HTTPTimeouts(header: .seconds(2), body: .seconds(30), idle: .seconds(30)))
        #expect(!configuration.outbound.allowInternal)
        #expect(!configuration.auth.external.customLinkByEmail && !configuration.auth.external.manualLinking)
    }

    /// #34: HTTP timeouts, internal addresses for outbound calls, the Azure and custom-provider
    /// switches, read from the environment; a timeout of 0 refuses to start.
    @Test func securitySwitchesAreRead() throws {
        let configuration = try ServerConfiguration.load(environment: [
            "LATCHKEY_HTTP_HEADER_TIMEOUT": "5", "LATCHKEY_HTTP_BODY_TIMEOUT": "1m", "LATCHKEY_HTTP_IDLE_TIMEOUT": "7",
            "LATCHKEY_OUTBOUND_ALLOW_PRIVATE": "true", "LATCHKEY_EXTERNAL_CUSTOM_LINK_BY_EMAIL": "true",
            "GOTRUE_EXTERNAL_AZURE_ENABLED": "true", "GOTRUE_EXTERNAL_AZURE_CLIENT_ID": "app",
        ])
        #expect(configuration.httpTimeouts == HTTPTimeouts(header: .seconds(5), body: .seconds(60), idle: .seconds(7)))
        #expect(configuration.outbound.allowInternal && configuration.auth.external.customLinkByEmail)
        #expect(configuration.auth.external.providers.first { $0.name == "azure" }?.claims == .azureAnyTenant)
        let trusting = try ServerConfiguration.load(environment: [
            "GOTRUE_EXTERNAL_AZURE_ENABLED": "true", "GOTRUE_EXTERNAL_AZURE_CLIENT_ID": "app",
            "LATCHKEY_EXTERNAL_AZURE_TRUST_EMAIL_WITHOUT_EDOV": "true",
        ])
        #expect(trusting.auth.external.providers.first { $0.name == "azure" }?.claims == .azure)
        let oneTenant = try ServerConfiguration.load(environment: [
            "GOTRUE_EXTERNAL_AZURE_ENABLED": "true", "GOTRUE_EXTERNAL_AZURE_CLIENT_ID": "app",
            "GOTRUE_EXTERNAL_AZURE_URL": "https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/v2.0",
        ])
        #expect(oneTenant.auth.external.providers.first { $0.name == "azure" }?.claims == .azure)
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.load(environment: ["LATCHKEY_HTTP_HEADER_TIMEOUT": "0"]) }
    }

    @Test(arguments: [
        ["PORT": "http"], ["PORT": "70000"], ["GOTRUE_MAILER_AUTOCONFIRM": "maybe"], ["GOTRUE_JWT_KEYS": "{not json"],
        ["GOTRUE_SMTP_MAX_FREQUENCY": "soon"], ["DATABASE_URL": "postgres:///nohost"],
        ["DATABASE_URL": "postgres://db/auth", "LATCHKEY_DB_SCHEMA": "Bad-Name"],
        ["DATABASE_URL": "postgres://db/auth", "GOTRUE_DB_MAX_POOL_SIZE": "501"], ["DATABASE_URL": "postgres://db/auth?sslmode=maybe"],
        ["DATABASE_URL": "postgres://db/auth", "LATCHKEY_DB_CA_FILE": "/nonexistent/ca.pem"],
        ["GOTRUE_SMTP_HOST": "smtp.example.com"], ["GOTRUE_SMTP_HOST": "smtp.example.com", "GOTRUE_SMTP_ADMIN_EMAIL": "not an address"],
        ["GOTRUE_SMTP_HOST": "h", "GOTRUE_SMTP_ADMIN_EMAIL": "a@example.com", "GOTRUE_SMTP_PORT": "0"],
        ["GOTRUE_SMTP_HOST": "h", "GOTRUE_SMTP_ADMIN_EMAIL": "a@example.com", "LATCHKEY_SMTP_TLS": "maybe"],
        ["GOTRUE_SMTP_HOST": "h", "GOTRUE_SMTP_ADMIN_EMAIL": "a@example.com", "LATCHKEY_SMTP_CA_FILE": "/nonexistent/ca.pem"],
        ["LATCHKEY_TEMPLATES_DIR": "/nonexistent/templates"], ["GOTRUE_MAILER_SUBJECTS_RECOVERY": "{{#unclosed}}"],
        ["LATCHKEY_AUDIT_RETENTION_DAYS": "-1"], ["GOTRUE_MFA_MAX_ENROLLED_FACTORS": "0"], ["LATCHKEY_MFA_MAX_ATTEMPTS": "1001"],
        ["GOTRUE_MFA_CHALLENGE_EXPIRY_DURATION": "0s"], ["GOTRUE_MFA_PHONE_TEMPLATE": "{{#unclosed}}"],
        ["GOTRUE_MFA_MAX_VERIFIED_FACTORS": "0"], ["GOTRUE_MFA_PHONE_ENROLL_ENABLED": "maybe"], ["LATCHKEY_SERVER_SECRET": "c2hvcnQ="],
        ["LATCHKEY_SERVER_SECRET": "not base64 at all, though long enough to pass a length check"],
        ["LATCHKEY_SERVER_SECRET_FILE": "/nonexistent/secret"],
        ["LATCHKEY_SERVER_SECRET": "q80VK0dPk93cvUeYxZUlcilpdlmc0OoK1HSsSClRVsw=", "LATCHKEY_SERVER_SECRET_FILE": "/etc/hostname"],
    ])
    func badValuesAreClearErrors(environment: [String: String]) {
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.load(environment: environment) }
    }

    /// The server secret comes from the environment (base64 or base64url of 32 bytes or more) or
    /// a file, and never appears in an error.
    @Test func theServerSecretComesFromTheEnvironmentOrAFile() throws {
        let bytes = (0..<32).map { UInt8($0 * 7 % 256) }
        let standard = Data(bytes).base64EncodedString()
        #expect(try ServerConfiguration.load(environment: ["LATCHKEY_SERVER_SECRET": standard]).serverSecret == bytes)
        #expect(try ServerConfiguration.load(environment: ["LATCHKEY_SERVER_SECRET": Base64URL.encode(bytes) + "\n"]).serverSecret == bytes)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("secret-\(UUID().uuidString)")
        try Data((standard + "\n").utf8).write(to: file)
        #expect(try ServerConfiguration.load(environment: ["LATCHKEY_SERVER_SECRET_FILE": file.path]).serverSecret == bytes)
        #expect(try ServerConfiguration.load(environment: [:]).serverSecret == nil)
        let short = "c2hvcnQtc2VjcmV0LXZhbHVl"
        do {
            _ = try ServerConfiguration.load(environment: ["LATCHKEY_SERVER_SECRET": short])
            Issue.record("a short secret was accepted")
        } catch let error as ConfigurationError {
            #expect(!error.description.contains(short))
        }
    }

    /// Durations as GoTrue's configuration writes them (Go's `time.ParseDuration`), in whole
    /// seconds rounded up.
    @Test(arguments: [
        ("60", 60), ("90s", 90), ("5m", 300), ("1h", 3600), ("1h30m", 5400), ("1.5h", 5400), ("500ms", 1), ("1ns", 1),
        ("2m3s", 123), ("0s", 0),
    ])
    func goDurationsAreRead(text: String, seconds: Int) throws {
        #expect(try ServerConfiguration.load(environment: ["GOTRUE_SMTP_MAX_FREQUENCY": text]).auth.otp.sendFrequency == seconds)
    }

    @Test(arguments: ["soon", "1d", "-1s", "1.2.3s", "s", "10000h", "5x", "m5"])
    func badDurationsAreRefused(text: String) {
        #expect(throws: ConfigurationError.self) {
            try ServerConfiguration.load(environment: ["GOTRUE_SMTP_MAX_FREQUENCY": text])
        }
    }

    /// GoTrue's names for the listen address and its decimal rate limits are read.
    @Test func goTruesHostAndDecimalRateLimitsAreRead() throws {
        let loaded = try ServerConfiguration.load(environment: [
            "GOTRUE_API_HOST": "0.0.0.0", "GOTRUE_RATE_LIMIT_OTP": "30.0", "GOTRUE_RATE_LIMIT_ANONYMOUS_USERS": "12.5",
            "GOTRUE_RATE_LIMIT_HEADER": "X-Forwarded-For",
        ])
        #expect(loaded.host == "0.0.0.0")
        #expect(loaded.auth.rateLimits.otpPerIP.count == 30)
        #expect(loaded.auth.rateLimits.anonymousPerIP.count == 12)
        #expect(try ServerConfiguration.load(environment: [:]).host == "127.0.0.1")
        // GoTrue's "no limit" pool size and its other SMS providers start (the SMS fails at use).
        #expect(
            try ServerConfiguration.load(environment: ["DATABASE_URL": "postgres://db/auth", "GOTRUE_DB_MAX_POOL_SIZE": "0"])
                .postgres?.poolSize == 10)
        // GoTrue's clean-up switch keeps anonymous users 30 days, as GoTrue's clean-up does.
        #expect(try ServerConfiguration.load(environment: ["GOTRUE_DB_CLEANUP_ENABLED": "true"]).auth.anonymousUserRetentionDays == 30)
        #expect(try ServerConfiguration.load(environment: [:]).auth.anonymousUserRetentionDays == 0)
        #expect(
            try ServerConfiguration.load(environment: [
                "GOTRUE_DB_CLEANUP_ENABLED": "true", "LATCHKEY_ANONYMOUS_USERS_RETENTION_DAYS": "7",
            ]).auth.anonymousUserRetentionDays == 7)
        let vonage = try ServerConfiguration.load(environment: ["GOTRUE_SMS_PROVIDER": "vonage"])
        #expect(vonage.unusableSMSProvider == "vonage" && vonage.warnings.count == 1)
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.load(environment: ["GOTRUE_RATE_LIMIT_OTP": "-1.5"]) }
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.load(environment: ["PORT": "80.5"]) }
    }

    @Test func smtpIsConfiguredWithGoTrueNames() throws {
        #expect(try ServerConfiguration.load(environment: [:]).smtp == nil)
        let configuration = try ServerConfiguration.load(environment: [
            "GOTRUE_SMTP_HOST": "smtp.example.com", "GOTRUE_SMTP_PORT": "465", "GOTRUE_SMTP_USER": "apikey",
            "GOTRUE_SMTP_PASS": "secret", "GOTRUE_SMTP_ADMIN_EMAIL": "auth@example.com", "GOTRUE_SMTP_SENDER_NAME": "Example",
            "LATCHKEY_MAIL_MAX_ATTEMPTS": "3", "LATCHKEY_EXTERNAL_URL": "https://auth.example.com",
        ])
        let smtp = try #require(configuration.smtp)
        #expect(smtp.host == "smtp.example.com")
        #expect(smtp.port == 465)
        #expect(smtp.username == "apikey")
        #expect(smtp.password == "secret")
        #expect(smtp.senderAddress == "auth@example.com")
        #expect(smtp.senderName == "Example")
        #expect(smtp.security == .auto)
        #expect(smtp.heloName == "auth.example.com")
        #expect(configuration.mailRetry.maxAttempts == 3)
    }

    @Test func goTrueSubjectsAndSMSTemplateApply() throws {
        let configuration = try ServerConfiguration.load(environment: [
            "GOTRUE_MAILER_SUBJECTS_CONFIRMATION": "Welcome to {{ application.name }}", "LATCHKEY_APP_NAME": "Acme",
            "GOTRUE_SMS_TEMPLATE": "Code: {{ .Code }}",
        ])
        let composer = EmailComposer(
            appName: "Acme", externalURL: "http://x", siteURL: "http://y", templates: configuration.templates, validMinutes: 10)
        #expect(composer.email(.confirmation, to: "a@example.com", user: nil, code: "1").subject == "Welcome to Acme")
        #expect(composer.sms(to: "1", user: nil, code: "424242", validMinutes: 1) == "Code: 424242")
    }

    @Test func otpLengthOutsideSixToTenFallsBackToSix() throws {
        #expect(try ServerConfiguration.load(environment: ["GOTRUE_MAILER_OTP_LENGTH": "4"]).auth.otp.length == 6)
        #expect(try ServerConfiguration.load(environment: ["GOTRUE_MAILER_OTP_LENGTH": "8"]).auth.otp.length == 8)
    }

    @Test func devMailboxIsForLoopbackClients() {
        #expect(DevMailboxController.isLoopback("127.0.0.1"))
        #expect(DevMailboxController.isLoopback("::1"))
        #expect(!DevMailboxController.isLoopback("10.0.0.5"))
        #expect(!DevMailboxController.isLoopback("203.0.113.9"))
    }
}
