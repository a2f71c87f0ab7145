import Foundation
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
            "GOTRUE_RATE_LIMIT_VERIFY": "12",
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
    }

    @Test(arguments: [
        ["PORT": "http"], ["PORT": "70000"], ["GOTRUE_MAILER_AUTOCONFIRM": "maybe"], ["GOTRUE_JWT_KEYS": "{not json"],
        ["GOTRUE_SMTP_MAX_FREQUENCY": "soon"], ["DATABASE_URL": "postgres:///nohost"],
        ["DATABASE_URL": "postgres://db/auth", "LATCHKEY_DB_SCHEMA": "Bad-Name"],
        ["DATABASE_URL": "postgres://db/auth", "GOTRUE_DB_MAX_POOL_SIZE": "0"], ["DATABASE_URL": "postgres://db/auth?sslmode=maybe"],
        ["DATABASE_URL": "postgres://db/auth", "LATCHKEY_DB_CA_FILE": "/nonexistent/ca.pem"],
        ["GOTRUE_SMTP_HOST": "smtp.example.com"], ["GOTRUE_SMTP_HOST": "smtp.example.com", "GOTRUE_SMTP_ADMIN_EMAIL": "not an address"],
        ["GOTRUE_SMTP_HOST": "h", "GOTRUE_SMTP_ADMIN_EMAIL": "a@example.com", "GOTRUE_SMTP_PORT": "0"],
        ["GOTRUE_SMTP_HOST": "h", "GOTRUE_SMTP_ADMIN_EMAIL": "a@example.com", "LATCHKEY_SMTP_TLS": "maybe"],
        ["GOTRUE_SMTP_HOST": "h", "GOTRUE_SMTP_ADMIN_EMAIL": "a@example.com", "LATCHKEY_SMTP_CA_FILE": "/nonexistent/ca.pem"],
        ["LATCHKEY_TEMPLATES_DIR": "/nonexistent/templates"], ["GOTRUE_MAILER_SUBJECTS_RECOVERY": "{{#unclosed}}"],
        ["LATCHKEY_AUDIT_RETENTION_DAYS": "-1"], ["GOTRUE_MFA_MAX_ENROLLED_FACTORS": "0"], ["LATCHKEY_MFA_MAX_ATTEMPTS": "0"],
        ["GOTRUE_MFA_CHALLENGE_EXPIRY_DURATION": "0s"],
    ])
    func badValuesAreClearErrors(environment: [String: String]) {
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.load(environment: environment) }
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
            appName: "Acme", externalURL: "http://x", siteURL: "http://y", templates: configuration.auth.templates, validMinutes: 10)
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
