import Foundation
import LatchkeyAPI
import LatchkeyCore
import LatchkeyDelivery
import LatchkeyStore
import Logging

extension ServerConfiguration {
    /// PostgreSQL's settings, checked: the URL, schema, pool size, prepared statements, TLS mode and
    /// CA file.
    static func postgresOptions(_ raw: String, reader: SettingReader) throws -> PostgresDatabase.Options {
        guard let url = URL(string: raw) else {
            throw ConfigurationError("DATABASE_URL must look like postgres://user:password@host:5432/database")
        }
        var poolSize = try reader.int(orDefault: "db-pool-size")
        // GoTrue's 0 means no limit of its own: the default here.
        if poolSize == 0 { poolSize = 10 }
        guard (1...500).contains(poolSize) else { throw ConfigurationError("db-pool-size must be 1–500, not \(poolSize)") }
        let caFile = reader.string("db-ca-file")
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw ConfigurationError("db-ca-file \(caFile) cannot be read")
        }
        var options = PostgresDatabase.Options(
            url: url, schema: reader.string(orDefault: "db-schema"), poolSize: poolSize, caFile: caFile)
        options.preparedStatements = try reader.bool(orDefault: "db-prepared-statements")
        do {
            try options.validate()
        } catch let error as StoreSetupError {
            throw ConfigurationError(error.description)
        }
        return options
    }

    /// The server secret from the environment or a file, checked (never echoed in an error).
    static func serverSecret(_ reader: SettingReader) throws -> [UInt8]? {
        let text = reader.string("server-secret"), file = reader.string("server-secret-file")
        if text != nil && file != nil {
            throw ConfigurationError("Set server-secret or server-secret-file, not both")
        }
        if let text {
            guard let secret = ServerSecret.parse(text) else {
                throw ConfigurationError("server-secret must be base64 of at least 32 random bytes (openssl rand -base64 32)")
            }
            return secret
        }
        guard let file else { return nil }
        guard let data = FileManager.default.contents(atPath: file) else {
            throw ConfigurationError("server-secret-file \(file) cannot be read")
        }
        guard let secret = ServerSecret.parse(String(decoding: data, as: UTF8.self)) else {
            throw ConfigurationError("server-secret-file \(file) must hold base64 of at least 32 random bytes")
        }
        return secret
    }

    /// Reads the configuration: `overrides` (flags, by setting key) first, then the environment
    /// (Latchkey's names before GoTrue's), then the defaults in ``Setting/all``.
    public static func load(environment: [String: String], overrides: [String: String] = [:]) throws -> ServerConfiguration {
        let profile = try SettingsProfile.of(environment)
        let reader = SettingReader(environment: environment, overrides: overrides, profile: profile)
        let host = reader.string(orDefault: "host")
        let port = try reader.int(orDefault: "port")
        guard (0...65535).contains(port) else { throw ConfigurationError("port must be 0–65535, not \(port)") }
        let dataDirectory = reader.string(orDefault: "data-dir")
        var databasePath: String?
        var postgres: PostgresDatabase.Options?
        if let database = reader.string("database") {
            if database.hasPrefix("sqlite://") {
                databasePath = String(database.dropFirst("sqlite://".count))
            } else if database.hasPrefix("postgres://") || database.hasPrefix("postgresql://") {
                postgres = try Self.postgresOptions(database, reader: reader)
            } else {
                databasePath = database
            }
        }
        let externalURL = reader.string("external-url") ?? "http://\(host == "0.0.0.0" ? "127.0.0.1" : host):\(port)"

        var jwtKeys: [[String: JSONValue]] = []
        if let raw = reader.string("jwt-keys") {
            do {
                let value = try JSONDecoder().decode(JSONValue.self, from: Data(raw.utf8))
                switch value {
                case .array(let items): jwtKeys = items.compactMap(\.objectValue)
                case .object(let object):
                    if case .array(let items)? = object["keys"] { jwtKeys = items.compactMap(\.objectValue) } else { jwtKeys = [object] }
                default: throw ConfigurationError("GOTRUE_JWT_KEYS must be a JSON array of JWKs")
                }
            } catch let error as ConfigurationError {
                throw error
            } catch {
                throw ConfigurationError("GOTRUE_JWT_KEYS is not valid JSON")
            }
        }

        var otpLength = try reader.int(orDefault: "otp-length")
        if !(6...10).contains(otpLength) { otpLength = 6 }
        let logN = try reader.int(orDefault: "password-scrypt-log-n")
        guard (1...22).contains(logN) else { throw ConfigurationError("password-scrypt-log-n must be 1–22") }
        let hashConcurrency = try reader.int("password-hash-concurrency") ?? ProcessInfo.processInfo.activeProcessorCount
        guard (1...256).contains(hashConcurrency) else { throw ConfigurationError("password-hash-concurrency must be 1–256") }
        for (key, range) in [("mfa-max-attempts", 0...1000), ("mfa-max-enrolled-factors", 1...100)] {
            if let value = try reader.int(key), !range.contains(value) {
                throw ConfigurationError("\(key) must be \(range.lowerBound)–\(range.upperBound), not \(value)")
            }
        }
        if let expiry = try reader.seconds("mfa-challenge-expiry"), expiry < 1 {
            throw ConfigurationError("mfa-challenge-expiry must be at least one second")
        }

        let subjectKeys: [(String, MessageKind)] = [
            ("mailer-subjects-confirmation", .confirmation), ("mailer-subjects-magic-link", .magicLink),
            ("mailer-subjects-recovery", .recovery), ("mailer-subjects-email-change", .emailChange), ("mailer-subjects-invite", .invite),
            ("mailer-subjects-reauthentication", .reauthentication),
        ]
        var subjects: [MessageKind: String] = [:]
        for (key, kind) in subjectKeys { if let subject = reader.string(key) { subjects[kind] = subject } }
        let templates: MessageTemplates
        do {
            templates = try MessageTemplates.load(
                directory: reader.string("templates-dir"), subjects: subjects, sms: reader.string("sms-template"))
        } catch let error as TemplateError {
            throw ConfigurationError(error.description)
        }

        var testOTPs: [String: String] = [:]
        for pair in reader.list("sms-test-otp") {
            let parts = pair.split(separator: ":").map { $0.trimmingCharacters(in: .whitespaces) }
            let number = parts.first.map { $0.hasPrefix("+") ? String($0.dropFirst()) : $0 } ?? ""
            guard parts.count == 2, !number.isEmpty, number.allSatisfy(\.isNumber), !parts[1].isEmpty, parts[1].allSatisfy(\.isNumber)
            else { throw ConfigurationError("sms-test-otp must be number:code pairs separated by commas, not '\(pair)'") }
            testOTPs[number] = parts[1]
        }
        var testOTPValidUntil: Date?
        if let text = reader.string("sms-test-otp-valid-until") {
            guard let date = WireJSON.parseDate(text) else {
                throw ConfigurationError("sms-test-otp-valid-until must be an RFC 3339 time, not '\(text)'")
            }
            testOTPValidUntil = date
        }
        var smsLength = try reader.int(orDefault: "sms-otp-length")
        if !(6...10).contains(smsLength) { smsLength = 6 }
        let smsSettings = SMSSettings(
            enabled: try reader.bool(orDefault: "phone-enabled"), autoconfirm: try reader.bool(orDefault: "sms-autoconfirm"),
            expiry: try reader.seconds(orDefault: "sms-otp-exp"), length: smsLength,
            sendFrequency: try reader.seconds(orDefault: "sms-max-frequency"),
            testOTPs: testOTPs, testOTPValidUntil: testOTPValidUntil)
        var twilio: TwilioConfiguration?
        var unusableSMSProvider: String?
        var warnings: [String] = []
        switch reader.string("sms-provider")?.lowercased() {
        case nil: break
        case "twilio":
            // As GoTrue: incomplete credentials do not stop the server; sending an SMS fails.
            let sid = reader.string("sms-twilio-account-sid"), sender = reader.string("sms-twilio-message-service-sid")
            let apiKey = reader.string("sms-twilio-api-key")
            let hasSecret =
                reader.string("sms-twilio-auth-token") != nil || (apiKey != nil && reader.string("sms-twilio-api-secret") != nil)
            if let sid, let sender, hasSecret {
                twilio = TwilioConfiguration(
                    accountSID: sid, authToken: reader.string("sms-twilio-auth-token"), apiKey: apiKey,
                    apiSecret: reader.string("sms-twilio-api-secret"), sender: sender,
                    apiURL: reader.string(orDefault: "sms-twilio-api-url"))
            } else {
                let missing =
                    [
                        sid == nil ? "sms-twilio-account-sid" : nil, sender == nil ? "sms-twilio-message-service-sid" : nil,
                        hasSecret ? nil : "sms-twilio-auth-token (or sms-twilio-api-key and sms-twilio-api-secret)",
                    ]
                    .compactMap { $0 }.joined(separator: ", ")
                unusableSMSProvider = "twilio"
                warnings.append("sms-provider twilio lacks \(missing): every SMS will fail (500, Unable to get SMS provider)")
            }
        case let other?:
            // GoTrue's other providers (messagebird, textlocal, vonage, twilio_verify) start GoTrue;
            // here they start too, and each SMS fails as with a provider that lacks credentials.
            unusableSMSProvider = other
            warnings.append("sms-provider \(other) is not supported (only twilio): every SMS will fail (500, Unable to get SMS provider)")
        }

        // An operator who set GoTrue's 5-minute limit gets what it allows in an hour, as on GoTrue
        // (whose profile has no hourly limit).
        let otpPerFiveMinutes = try reader.int("rate-limit-otp")
        let otpPerHour =
            try reader.limit("rate-limit-otp-per-hour", period: 3600)
            ?? RateLimit(count: otpPerFiveMinutes.map { min($0, Int.max / 12) * 12 } ?? 60, period: 3600)
        var auth = AuthConfiguration(
            siteURL: reader.string(orDefault: "site-url"), externalURL: externalURL,
            uriAllowList: reader.list("uri-allow-list"), appName: reader.string(orDefault: "app-name"),
            disableSignup: try reader.bool(orDefault: "disable-signup"),
            mailerAutoconfirm: try reader.bool(orDefault: "mailer-autoconfirm"),
            linkConfirmationPage: try reader.bool(orDefault: "link-confirmation-page"),
            secureEmailChange: try reader.bool(orDefault: "mailer-secure-email-change"),
            flowStateExpiry: try reader.seconds(orDefault: "flow-state-expiry"),
            userMetadataMaxBytes: try reader.int(orDefault: "user-metadata-max-bytes"),
            jwt: JWTSettings(
                expiry: try reader.int(orDefault: "jwt-exp"), audience: reader.string(orDefault: "jwt-aud"),
                issuer: reader.string("jwt-issuer") ?? "",  // unset: Core signs with the external URL, GoTrue's default
                adminRoles: reader.list("jwt-admin-roles").isEmpty ? ["service_role", "supabase_admin"] : reader.list("jwt-admin-roles")),
            otp: OTPSettings(
                expiry: try reader.seconds(orDefault: "otp-exp"), length: otpLength,
                maxAttempts: AttemptCap.configured(try reader.int(orDefault: "otp-max-attempts")),
                sendFrequency: try reader.seconds(orDefault: "smtp-max-frequency")),
            password: PasswordSettings(
                minLength: try reader.int(orDefault: "password-min-length"), maxBytes: try reader.int(orDefault: "password-max-bytes"),
                blockCommon: try reader.bool(orDefault: "password-block-common"), scryptLogN: logN,
                requireCurrentPassword: try reader.bool(orDefault: "password-require-current"),
                requireReauthentication: try reader.bool(orDefault: "password-require-reauthentication")),
            sessions: SessionSettings(
                refreshReuseInterval: try reader.seconds(orDefault: "refresh-reuse-interval"),
                timebox: try reader.seconds(orDefault: "sessions-timebox"),
                inactivityTimeout: try reader.seconds(orDefault: "sessions-inactivity-timeout")),
            rateLimits: RateLimitSettings(
                tokenPerIP: .init(count: try reader.int(orDefault: "rate-limit-token"), period: 300),
                verifyPerIP: .init(count: try reader.int(orDefault: "rate-limit-verify"), period: 300),
                otpPerIP: .init(count: otpPerFiveMinutes ?? 30, period: 300),
                otpPerIPHourly: otpPerHour,
                emailSent: try reader.limit(orDefault: "rate-limit-email-sent", period: 3600),
                emailPerAddress: try reader.limit(orDefault: "rate-limit-email-per-address", period: 3600),
                signInFailuresPerAccount: try reader.limit(orDefault: "rate-limit-signin-failures", period: 900),
                smsSent: try reader.limit(orDefault: "rate-limit-sms-sent", period: 3600),
                smsPerNumber: try reader.limit(orDefault: "rate-limit-sms-per-number", period: 3600),
                mfaPerIP: .init(count: try reader.int(orDefault: "rate-limit-mfa"), period: 60)),
            sms: smsSettings,
            mfa: MFASettings(
                totpEnrollEnabled: try reader.bool(orDefault: "mfa-totp-enroll-enabled"),
                totpVerifyEnabled: try reader.bool(orDefault: "mfa-totp-verify-enabled"),
                maxEnrolledFactors: try reader.int(orDefault: "mfa-max-enrolled-factors"),
                challengeExpiry: try reader.seconds(orDefault: "mfa-challenge-expiry"),
                maxAttempts: AttemptCap.configured(try reader.int(orDefault: "mfa-max-attempts")),
                lockout: try reader.seconds(orDefault: "mfa-lockout")))
        auth.anonymousUsers = try reader.bool(orDefault: "anonymous-users")
        auth.external = try Self.externalSettings(reader, externalURL: externalURL)
        auth.passkeys = try Self.passkeySettings(reader, externalURL: externalURL, appName: auth.appName)
        let appleApps = try AppleAppSiteAssociation.read(reader)
        // GoTrue's clean-up deletes anonymous users after 30 days when GOTRUE_DB_CLEANUP_ENABLED is on.
        let goTrueCleanup = try reader.bool(orDefault: "db-cleanup-enabled")
        auth.anonymousUserRetentionDays = try reader.int("anonymous-users-retention-days") ?? (goTrueCleanup ? 30 : 0)
        auth.rateLimits.anonymousPerIP = .init(count: try reader.int(orDefault: "rate-limit-anonymous-users"), period: 3600)

        var smtp: SMTPConfiguration?
        if let smtpHost = reader.string("smtp-host") {
            guard let sender = reader.string("smtp-admin-email"), EmailAddress.canonical(sender) != nil else {
                throw ConfigurationError("smtp-admin-email (GOTRUE_SMTP_ADMIN_EMAIL) must be a valid address when smtp-host is set")
            }
            let smtpPort = try reader.int(orDefault: "smtp-port")
            guard (1...65535).contains(smtpPort) else { throw ConfigurationError("smtp-port must be 1–65535, not \(smtpPort)") }
            let tlsText = reader.string(orDefault: "smtp-tls")
            guard let security = SMTPConfiguration.Security(rawValue: tlsText.lowercased()) else {
                throw ConfigurationError("smtp-tls must be auto, starttls, tls or none, not '\(tlsText)'")
            }
            let caFile = reader.string("smtp-ca-file")
            if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
                throw ConfigurationError("smtp-ca-file \(caFile) cannot be read")
            }
            smtp = SMTPConfiguration(
                host: smtpHost, port: smtpPort, username: reader.string("smtp-user"), password: reader.string("smtp-pass"),
                senderAddress: sender, senderName: reader.string("smtp-sender-name"), security: security, caFile: caFile,
                timeout: .seconds(max(1, try reader.seconds(orDefault: "smtp-timeout"))),
                heloName: URL(string: externalURL)?.host ?? "localhost")
        }
        let auditRetention = try reader.int(orDefault: "audit-retention-days")
        guard (0...36500).contains(auditRetention) else {
            throw ConfigurationError("audit-retention-days must be 0 (keep for ever) to 36500, not \(auditRetention)")
        }
        let mailRetry = MailRetryPolicy(
            maxAttempts: try reader.int(orDefault: "mail-max-attempts"), baseDelay: Double(try reader.seconds(orDefault: "mail-retry-base"))
        )

        var configuration = ServerConfiguration(
            host: host, port: port, dataDirectory: dataDirectory, databasePath: databasePath, postgres: postgres,
            trustedIPHeader: reader.string("rate-limit-header"), jwtKeys: jwtKeys, jwtSecret: reader.string("jwt-secret"),
            hashingThreads: hashConcurrency, devMailboxPublic: try reader.bool(orDefault: "dev-mailbox-public"), auth: auth,
            smtp: smtp, mailRetry: mailRetry,
            twilio: twilio, keyReloadInterval: max(1, try reader.seconds(orDefault: "keys-reload-interval")),
            auditRetentionDays: auditRetention)
        configuration.serverSecret = try serverSecret(reader)
        configuration.httpTimeouts = try Self.httpTimeouts(reader)
        configuration.outbound = OutboundPolicy(allowInternal: try reader.bool(orDefault: "outbound-allow-private"))
        configuration.templates = templates
        configuration.pages = try Self.pageSettings(reader, appName: auth.appName)
        configuration.logging = try Self.logSettings(reader)
        configuration.metrics = try Self.metricsSettings(reader)
        configuration.hooks = try Self.hookSettings(reader)
        configuration.webhook = try Self.webhookSettings(reader)
        configuration.tracing = try Self.tracingEnabled(reader, environment: environment)
        configuration.trustedProxies = try reader.list("trusted-proxies").map { text in
            guard let network = IPNetwork(text) else {
                throw ConfigurationError("trusted-proxies must be addresses or networks like 10.0.0.0/8 or fd00::/8, not '\(text)'")
            }
            return network
        }
        configuration.unusableSMSProvider = unusableSMSProvider
        configuration.warnings = warnings + (try Self.goTrueFeatureWarnings(environment))
        configuration.profile = profile
        configuration.captcha = try Self.captchaSettings(reader)
        configuration.appleApps = appleApps
        for chain in ["solana", "ethereum"] {
            _ = try reader.bool("external-web3-\(chain)-enabled")
            _ = try reader.seconds("external-web3-\(chain)-maximum-validity-duration")
        }
        if let captcha = configuration.captcha, captcha.siteKey == nil, configuration.pages.enabled {
            configuration.warnings.append(
                "captcha is on without captcha-site-key (LATCHKEY_CAPTCHA_SITE_KEY): the hosted pages cannot show the widget, and their sign-in, sign-up and reset forms are refused"
            )
        }
        if !(try Self.countsPerIP(reader, configuration)) {
            configuration.auth.rateLimits.turnPerIPLimitsOff()
            configuration.auth.passkeys.perIP = .off
        }
        return configuration
    }

    /// Whether per-IP limits count: `rate-limit-per-ip` when set; else always in the strict profile,
    /// and in GoTrue's only when a client address can be trusted (GoTrue counts per IP only with
    /// `GOTRUE_RATE_LIMIT_HEADER`; here trusted proxies say it too).
    static func countsPerIP(_ reader: SettingReader, _ configuration: ServerConfiguration) throws -> Bool {
        if let explicit = reader.explicit("rate-limit-per-ip") {
            guard let value = SettingReader.boolean(explicit) else {
                throw ConfigurationError("rate-limit-per-ip must be true or false, not '\(explicit)'")
            }
            return value
        }
        return reader.profile == .strict || configuration.trustedIPHeader != nil || !configuration.trustedProxies.isEmpty
    }
}

extension ServerConfiguration {
    /// GoTrue's captcha settings, checked as GoTrue checks them: only when captcha is on, then a
    /// known provider and a secret, or the server does not start.
    static func captchaSettings(_ reader: SettingReader) throws -> CaptchaSettings? {
        guard try reader.bool(orDefault: "captcha-enabled") else { return nil }
        let name = reader.string(orDefault: "captcha-provider")
        guard let provider = CaptchaSettings.Provider(rawValue: name.lowercased()) else {
            throw ConfigurationError("captcha-provider (GOTRUE_SECURITY_CAPTCHA_PROVIDER) must be hcaptcha or turnstile, not '\(name)'")
        }
        guard let secret = reader.string("captcha-secret")?.trimmingCharacters(in: .whitespacesAndNewlines), !secret.isEmpty else {
            throw ConfigurationError("captcha is on but captcha-secret (GOTRUE_SECURITY_CAPTCHA_SECRET) is empty")
        }
        let timeout = try reader.seconds(orDefault: "captcha-timeout")
        let verifyURL = reader.string("captcha-verify-url")
        if let verifyURL, !IssuerURL.isAcceptable(verifyURL) {
            throw ConfigurationError("captcha-verify-url must be an https:// URL (or http:// on a loopback address), not '\(verifyURL)'")
        }
        return CaptchaSettings(
            provider: provider, secret: secret, timeout: .seconds(timeout == 0 ? 10 : timeout), verifyURL: verifyURL,
            siteKey: reader.string("captcha-site-key"))
    }
}
