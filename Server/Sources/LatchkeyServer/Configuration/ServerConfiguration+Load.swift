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
        var poolSize = try reader.int("db-pool-size") ?? 10
        // GoTrue's 0 means no limit of its own: the default here.
        if poolSize == 0 { poolSize = 10 }
        guard (1...500).contains(poolSize) else { throw ConfigurationError("db-pool-size must be 1–500, not \(poolSize)") }
        let caFile = reader.string("db-ca-file")
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw ConfigurationError("db-ca-file \(caFile) cannot be read")
        }
        var options = PostgresDatabase.Options(
            url: url, schema: reader.string("db-schema") ?? "auth", poolSize: poolSize, caFile: caFile)
        options.preparedStatements = try reader.bool("db-prepared-statements") ?? true
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
        let host = reader.string("host") ?? "127.0.0.1"
        let port = try reader.int("port") ?? 9999
        guard (0...65535).contains(port) else { throw ConfigurationError("port must be 0–65535, not \(port)") }
        let dataDirectory = reader.string("data-dir") ?? "./latchkey-data"
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

        var otpLength = try reader.int("otp-length") ?? 6
        if !(6...10).contains(otpLength) { otpLength = 6 }
        let logN = try reader.int("password-scrypt-log-n") ?? 17
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
        var smsLength = try reader.int("sms-otp-length") ?? 6
        if !(6...10).contains(smsLength) { smsLength = 6 }
        let smsSettings = SMSSettings(
            enabled: try reader.bool("phone-enabled") ?? true, autoconfirm: try reader.bool("sms-autoconfirm") ?? false,
            expiry: try reader.seconds("sms-otp-exp") ?? 300, length: smsLength,
            sendFrequency: try reader.seconds("sms-max-frequency") ?? 60,
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
                    apiURL: reader.string("sms-twilio-api-url") ?? "https://api.twilio.com")
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
            siteURL: reader.string("site-url") ?? "http://localhost:3000", externalURL: externalURL,
            uriAllowList: reader.list("uri-allow-list"), appName: reader.string("app-name") ?? "Latchkey",
            disableSignup: try reader.bool("disable-signup") ?? false,
            mailerAutoconfirm: try reader.bool("mailer-autoconfirm") ?? false,
            linkConfirmationPage: try reader.bool("link-confirmation-page") ?? true,
            secureEmailChange: try reader.bool("mailer-secure-email-change") ?? true,
            flowStateExpiry: try reader.seconds("flow-state-expiry") ?? 300,
            userMetadataMaxBytes: try reader.int("user-metadata-max-bytes") ?? 16384,
            jwt: JWTSettings(
                expiry: try reader.int("jwt-exp") ?? 3600, audience: reader.string("jwt-aud") ?? "authenticated",
                issuer: reader.string("jwt-issuer") ?? "",
                adminRoles: reader.list("jwt-admin-roles").isEmpty ? ["service_role", "supabase_admin"] : reader.list("jwt-admin-roles")),
            otp: OTPSettings(
                expiry: try reader.seconds("otp-exp") ?? 600, length: otpLength,
                maxAttempts: AttemptCap.configured(try reader.int("otp-max-attempts") ?? 5),
                sendFrequency: try reader.seconds("smtp-max-frequency") ?? 60),
            password: PasswordSettings(
                minLength: try reader.int("password-min-length") ?? 15, maxBytes: try reader.int("password-max-bytes") ?? 1024,
                blockCommon: try reader.bool("password-block-common") ?? true, scryptLogN: logN,
                requireCurrentPassword: try reader.bool("password-require-current") ?? false,
                requireReauthentication: try reader.bool("password-require-reauthentication") ?? false),
            sessions: SessionSettings(
                refreshReuseInterval: try reader.seconds("refresh-reuse-interval") ?? 10,
                timebox: try reader.seconds("sessions-timebox") ?? 0,
                inactivityTimeout: try reader.seconds("sessions-inactivity-timeout") ?? 0),
            rateLimits: RateLimitSettings(
                tokenPerIP: .init(count: try reader.int("rate-limit-token") ?? 150, period: 300),
                verifyPerIP: .init(count: try reader.int("rate-limit-verify") ?? 30, period: 300),
                otpPerIP: .init(count: otpPerFiveMinutes ?? 30, period: 300),
                otpPerIPHourly: otpPerHour,
                emailSent: try reader.limit("rate-limit-email-sent", period: 3600) ?? .init(count: 1000, period: 3600),
                emailPerAddress: try reader.limit("rate-limit-email-per-address", period: 3600) ?? .init(count: 10, period: 3600),
                signInFailuresPerAccount: try reader.limit("rate-limit-signin-failures", period: 900) ?? .init(count: 10, period: 900),
                smsSent: try reader.limit("rate-limit-sms-sent", period: 3600) ?? .init(count: 100, period: 3600),
                smsPerNumber: try reader.limit("rate-limit-sms-per-number", period: 3600) ?? .init(count: 5, period: 3600),
                mfaPerIP: .init(count: try reader.int("rate-limit-mfa") ?? 15, period: 60)),
            sms: smsSettings,
            mfa: MFASettings(
                totpEnrollEnabled: try reader.bool("mfa-totp-enroll-enabled") ?? true,
                totpVerifyEnabled: try reader.bool("mfa-totp-verify-enabled") ?? true,
                maxEnrolledFactors: try reader.int("mfa-max-enrolled-factors") ?? 10,
                challengeExpiry: try reader.seconds("mfa-challenge-expiry") ?? 300,
                maxAttempts: AttemptCap.configured(try reader.int("mfa-max-attempts") ?? 5),
                lockout: try reader.seconds("mfa-lockout") ?? 900))
        auth.anonymousUsers = try reader.bool("anonymous-users") ?? false
        auth.external = try Self.externalSettings(reader, externalURL: externalURL)
        auth.passkeys = try Self.passkeySettings(reader, externalURL: externalURL, appName: auth.appName)
        let appleApps = try AppleAppSiteAssociation.read(reader)
        // GoTrue's clean-up deletes anonymous users after 30 days when GOTRUE_DB_CLEANUP_ENABLED is on.
        let goTrueCleanup = try reader.bool("db-cleanup-enabled") ?? false
        auth.anonymousUserRetentionDays = try reader.int("anonymous-users-retention-days") ?? (goTrueCleanup ? 30 : 0)
        auth.rateLimits.anonymousPerIP = .init(count: try reader.int("rate-limit-anonymous-users") ?? 30, period: 3600)

        var smtp: SMTPConfiguration?
        if let smtpHost = reader.string("smtp-host") {
            guard let sender = reader.string("smtp-admin-email"), EmailAddress.canonical(sender) != nil else {
                throw ConfigurationError("smtp-admin-email (GOTRUE_SMTP_ADMIN_EMAIL) must be a valid address when smtp-host is set")
            }
            let smtpPort = try reader.int("smtp-port") ?? 587
            guard (1...65535).contains(smtpPort) else { throw ConfigurationError("smtp-port must be 1–65535, not \(smtpPort)") }
            let tlsText = reader.string("smtp-tls") ?? "auto"
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
                timeout: .seconds(max(1, try reader.seconds("smtp-timeout") ?? 30)),
                heloName: URL(string: externalURL)?.host ?? "localhost")
        }
        let auditRetention = try reader.int("audit-retention-days") ?? 0
        guard (0...36500).contains(auditRetention) else {
            throw ConfigurationError("audit-retention-days must be 0 (keep for ever) to 36500, not \(auditRetention)")
        }
        let mailRetry = MailRetryPolicy(
            maxAttempts: try reader.int("mail-max-attempts") ?? 12, baseDelay: Double(try reader.seconds("mail-retry-base") ?? 5))

        var configuration = ServerConfiguration(
            host: host, port: port, dataDirectory: dataDirectory, databasePath: databasePath, postgres: postgres,
            trustedIPHeader: reader.string("rate-limit-header"), jwtKeys: jwtKeys, jwtSecret: reader.string("jwt-secret"),
            hashingThreads: hashConcurrency, devMailboxPublic: try reader.bool("dev-mailbox-public") ?? false, auth: auth,
            smtp: smtp, mailRetry: mailRetry,
            twilio: twilio, keyReloadInterval: max(1, try reader.seconds("keys-reload-interval") ?? 30),
            auditRetentionDays: auditRetention)
        configuration.serverSecret = try serverSecret(reader)
        configuration.httpTimeouts = try Self.httpTimeouts(reader)
        configuration.outbound = OutboundPolicy(allowInternal: try reader.bool("outbound-allow-private") ?? false)
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

/// Looks settings up by key in the flags, then the environment.
struct SettingReader {
    let environment: [String: String]
    let overrides: [String: String]
    var profile: SettingsProfile = .strict

    /// The value set for `key` (a flag, else the environment), else GoTrue's default under its
    /// profile when it differs from Latchkey's; `nil` leaves the caller's (Latchkey's) default.
    func string(_ key: String) -> String? {
        explicit(key) ?? (profile == .gotrue ? Setting.goTrueDefaults[key] : nil)
    }

    /// The value set for `key`, a flag or the environment, ignoring the profile.
    func explicit(_ key: String) -> String? {
        if let value = overrides[key], !value.isEmpty { return value }
        guard let setting = Setting.all.first(where: { $0.key == key }) else { return nil }
        for name in setting.environment {
            if let value = environment[name], !value.isEmpty { return value }
        }
        return nil
    }

    /// A rate limit of `period` seconds: a count, `off` (nothing counted), or GoTrue's
    /// `N/duration` (`100/30m`: 100 per half hour); `nil` when unset.
    func limit(_ key: String, period: Int) throws -> RateLimit? {
        guard let text = string(key)?.trimmingCharacters(in: .whitespaces) else { return nil }
        if text.lowercased() == "off" { return .off }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count == 2 {
            guard let count = Int(parts[0]), count >= 0, let seconds = Self.goDuration(String(parts[1])), seconds >= 1 else {
                throw ConfigurationError("\(key) must be a count, a count/duration such as 100/30m, or off, not '\(text)'")
            }
            return RateLimit(count: count, period: seconds)
        }
        return try int(key).map { RateLimit(count: $0, period: period) }
    }

    func int(_ key: String) throws -> Int? {
        guard let text = string(key) else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let value = Int(trimmed), value >= 0 { return value }
        // GoTrue reads its rate limits as decimals (`GOTRUE_RATE_LIMIT_OTP=30.0`): whole counts here.
        if key.hasPrefix("rate-limit-"), let value = Double(trimmed), value.isFinite, value >= 0, value < Double(Int32.max) {
            return Int(value.rounded(.down))
        }
        throw ConfigurationError("\(key) must be a whole number ≥ 0, not '\(text)'")
    }

    /// Seconds, as a number or a Go duration as GoTrue reads them (`90s`, `5m`, `1h30m`, `1.5h`,
    /// `500ms`, `1ns`), rounded up to whole seconds.
    func positiveSeconds(_ key: String, default value: Int) throws -> Duration {
        let seconds = try self.seconds(key) ?? value
        guard seconds >= 1 else { throw ConfigurationError("\(key) must be at least 1 second, not \(seconds)") }
        return .seconds(seconds)
    }

    func seconds(_ key: String) throws -> Int? {
        guard let text = string(key)?.trimmingCharacters(in: .whitespaces) else { return nil }
        if let value = Int(text), value >= 0 { return value }
        guard let value = Self.goDuration(text) else {
            throw ConfigurationError("\(key) must be seconds or a duration like 60s, not '\(text)'")
        }
        return value
    }

    /// A Go duration (`time.ParseDuration`, read by Core's one parser, ``GoDuration``) in whole
    /// seconds, rounded up; `nil` when it is not one, negative, or past a year.
    static func goDuration(_ text: String) -> Int? {
        guard let seconds = GoDuration.seconds(text), seconds >= 0, seconds <= 366 * 86400 else { return nil }
        return Int(seconds.rounded(.up))
    }

    func bool(_ key: String) throws -> Bool? {
        guard let text = string(key) else { return nil }
        guard let value = Self.boolean(text) else { throw ConfigurationError("\(key) must be true or false, not '\(text)'") }
        return value
    }

    static func boolean(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "1", "true", "yes", "on": true
        case "0", "false", "no", "off": false
        default: nil
        }
    }

    func list(_ key: String) -> [String] {
        (string(key) ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}

extension ServerConfiguration {
    static func logSettings(_ reader: SettingReader) throws -> LogSettings {
        let levelText = reader.string("log-level")?.lowercased() ?? "info"
        guard let level = Logger.Level(rawValue: levelText == "warn" ? "warning" : levelText) else {
            throw ConfigurationError("log-level (LATCHKEY_LOG_LEVEL) must be trace, debug, info, notice, warning, error or critical")
        }
        let formatText = reader.string("log-format")?.lowercased() ?? "text"
        guard let format = LogSettings.Format(rawValue: formatText) else {
            throw ConfigurationError("log-format (LATCHKEY_LOG_FORMAT) must be text or json")
        }
        return LogSettings(level: level, format: format, requests: try reader.bool("log-requests") ?? false)
    }
}

extension ServerConfiguration {
    /// Metrics are never open to anyone by default: on, they need a token or a port of their own.
    static func metricsSettings(_ reader: SettingReader) throws -> MetricsSettings {
        let enabled = try reader.bool("metrics-enabled") ?? false
        let token = reader.string("metrics-token")
        let port = try reader.int("metrics-port")
        if let token, token.count < 16 { throw ConfigurationError("metrics-token (LATCHKEY_METRICS_TOKEN) must be 16 characters or more") }
        if let port, !(1...65535).contains(port) { throw ConfigurationError("metrics-port (LATCHKEY_METRICS_PORT) must be a port number") }
        if enabled, token == nil, port == nil {
            throw ConfigurationError(
                "metrics are on (GOTRUE_METRICS_ENABLED) but neither LATCHKEY_METRICS_TOKEN nor LATCHKEY_METRICS_PORT says who may read them"
            )
        }
        return MetricsSettings(enabled: enabled, token: token, port: port, host: reader.string("metrics-host") ?? "127.0.0.1")
    }
}

extension ServerConfiguration {
    /// Traces are on with `OTEL_TRACES_EXPORTER=otlp` or an OTLP endpoint, off with
    /// `OTEL_SDK_DISABLED=true`; only OTLP over HTTP is built in.
    static func tracingEnabled(_ reader: SettingReader, environment: [String: String]) throws -> Bool {
        if environment["OTEL_SDK_DISABLED"]?.lowercased() == "true" { return false }
        let exporter = reader.string("traces-exporter")?.lowercased()
        guard exporter == "otlp" || (exporter == nil && reader.string("traces-endpoint") != nil) else {
            guard exporter == nil || exporter == "none" else {
                throw ConfigurationError("OTEL_TRACES_EXPORTER must be otlp or none, not '\(exporter ?? "")'")
            }
            return false
        }
        let otlpProtocol = environment["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"] ?? environment["OTEL_EXPORTER_OTLP_PROTOCOL"]
        if let otlpProtocol, !["http/protobuf", "http/json"].contains(otlpProtocol) {
            throw ConfigurationError("OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json (OTLP over gRPC is not built in)")
        }
        return true
    }
}

extension ServerConfiguration {
    /// `http-header-timeout`, `http-body-timeout`, `http-idle-timeout`: whole seconds, at least 1.
    static func httpTimeouts(_ reader: SettingReader) throws -> HTTPTimeouts {
        HTTPTimeouts(
            header: try reader.positiveSeconds("http-header-timeout", default: 2),
            body: try reader.positiveSeconds("http-body-timeout", default: 30),
            idle: try reader.positiveSeconds("http-idle-timeout", default: 30))
    }
}

extension ServerConfiguration {
    /// GoTrue's captcha settings, checked as GoTrue checks them: only when captcha is on, then a
    /// known provider and a secret, or the server does not start.
    static func captchaSettings(_ reader: SettingReader) throws -> CaptchaSettings? {
        guard try reader.bool("captcha-enabled") ?? false else { return nil }
        let name = reader.string("captcha-provider") ?? "hcaptcha"
        guard let provider = CaptchaSettings.Provider(rawValue: name.lowercased()) else {
            throw ConfigurationError("captcha-provider (GOTRUE_SECURITY_CAPTCHA_PROVIDER) must be hcaptcha or turnstile, not '\(name)'")
        }
        guard let secret = reader.string("captcha-secret")?.trimmingCharacters(in: .whitespacesAndNewlines), !secret.isEmpty else {
            throw ConfigurationError("captcha is on but captcha-secret (GOTRUE_SECURITY_CAPTCHA_SECRET) is empty")
        }
        let timeout = try reader.seconds("captcha-timeout") ?? 10
        let verifyURL = reader.string("captcha-verify-url")
        if let verifyURL, !IssuerURL.isAcceptable(verifyURL) {
            throw ConfigurationError("captcha-verify-url must be an https:// URL (or http:// on a loopback address), not '\(verifyURL)'")
        }
        return CaptchaSettings(
            provider: provider, secret: secret, timeout: .seconds(timeout == 0 ? 10 : timeout), verifyURL: verifyURL,
            siteKey: reader.string("captcha-site-key"))
    }
}
