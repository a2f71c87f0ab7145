import Foundation
import LatchkeyAPI
import LatchkeyCore
import LatchkeyDelivery
import LatchkeyStore

extension ServerConfiguration {
    /// PostgreSQL's settings, checked: the URL, schema, pool size, TLS mode and CA file.
    static func postgresOptions(_ raw: String, reader: SettingReader) throws -> PostgresDatabase.Options {
        guard let url = URL(string: raw) else {
            throw ConfigurationError("DATABASE_URL must look like postgres://user:password@host:5432/database")
        }
        let poolSize = try reader.int("db-pool-size") ?? 10
        guard (1...500).contains(poolSize) else { throw ConfigurationError("db-pool-size must be 1–500, not \(poolSize)") }
        let caFile = reader.string("db-ca-file")
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw ConfigurationError("db-ca-file \(caFile) cannot be read")
        }
        let options = PostgresDatabase.Options(
            url: url, schema: reader.string("db-schema") ?? "auth", poolSize: poolSize, caFile: caFile)
        do {
            try options.validate()
        } catch let error as StoreSetupError {
            throw ConfigurationError(error.description)
        }
        return options
    }

    /// Reads the configuration: `overrides` (flags, by setting key) first, then the environment
    /// (Latchkey's names before GoTrue's), then the defaults in ``Setting/all``.
    public static func load(environment: [String: String], overrides: [String: String] = [:]) throws -> ServerConfiguration {
        let reader = SettingReader(environment: environment, overrides: overrides)
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
        for (key, range) in [("mfa-max-attempts", 1...1000), ("mfa-max-enrolled-factors", 1...100)] {
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
        switch reader.string("sms-provider")?.lowercased() {
        case nil: break
        case "twilio":
            guard let sid = reader.string("sms-twilio-account-sid"), let sender = reader.string("sms-twilio-message-service-sid") else {
                throw ConfigurationError("sms-provider twilio needs sms-twilio-account-sid and sms-twilio-message-service-sid")
            }
            let apiKey = reader.string("sms-twilio-api-key")
            guard reader.string("sms-twilio-auth-token") != nil || (apiKey != nil && reader.string("sms-twilio-api-secret") != nil) else {
                throw ConfigurationError("sms-provider twilio needs sms-twilio-auth-token, or sms-twilio-api-key and sms-twilio-api-secret")
            }
            twilio = TwilioConfiguration(
                accountSID: sid, authToken: reader.string("sms-twilio-auth-token"), apiKey: apiKey,
                apiSecret: reader.string("sms-twilio-api-secret"), sender: sender,
                apiURL: reader.string("sms-twilio-api-url") ?? "https://api.twilio.com")
        case let other?:
            throw ConfigurationError("sms-provider \(other) is not supported; use twilio")
        }

        // An operator who set GoTrue's 5-minute limit gets what it allows in an hour, as on GoTrue.
        let otpPerFiveMinutes = try reader.int("rate-limit-otp")
        let otpPerHour = try reader.int("rate-limit-otp-per-hour") ?? otpPerFiveMinutes.map { min($0, Int.max / 12) * 12 } ?? 60
        let auth = AuthConfiguration(
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
                maxAttempts: try reader.int("otp-max-attempts") ?? 5, sendFrequency: try reader.seconds("smtp-max-frequency") ?? 60),
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
                otpPerIPHourly: .init(count: otpPerHour, period: 3600),
                emailSent: .init(count: try reader.int("rate-limit-email-sent") ?? 1000, period: 3600),
                emailPerAddress: .init(count: try reader.int("rate-limit-email-per-address") ?? 10, period: 3600),
                signInFailuresPerAccount: .init(count: try reader.int("rate-limit-signin-failures") ?? 10, period: 900),
                smsSent: .init(count: try reader.int("rate-limit-sms-sent") ?? 100, period: 3600),
                mfaPerIP: .init(count: try reader.int("rate-limit-mfa") ?? 15, period: 60)),
            templates: templates, sms: smsSettings,
            mfa: MFASettings(
                totpEnrollEnabled: try reader.bool("mfa-totp-enroll-enabled") ?? true,
                totpVerifyEnabled: try reader.bool("mfa-totp-verify-enabled") ?? true,
                maxEnrolledFactors: try reader.int("mfa-max-enrolled-factors") ?? 10,
                challengeExpiry: try reader.seconds("mfa-challenge-expiry") ?? 300, maxAttempts: try reader.int("mfa-max-attempts") ?? 5,
                lockout: try reader.seconds("mfa-lockout") ?? 900))

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

        return ServerConfiguration(
            host: host, port: port, dataDirectory: dataDirectory, databasePath: databasePath, postgres: postgres,
            trustedIPHeader: reader.string("rate-limit-header"), jwtKeys: jwtKeys, jwtSecret: reader.string("jwt-secret"),
            hashingThreads: hashConcurrency, devMailboxPublic: try reader.bool("dev-mailbox-public") ?? false, auth: auth,
            smtp: smtp, mailRetry: mailRetry,
            twilio: twilio, keyReloadInterval: max(1, try reader.seconds("keys-reload-interval") ?? 30),
            auditRetentionDays: auditRetention)
    }
}

/// Looks settings up by key in the flags, then the environment.
struct SettingReader {
    let environment: [String: String]
    let overrides: [String: String]

    func string(_ key: String) -> String? {
        if let value = overrides[key], !value.isEmpty { return value }
        guard let setting = Setting.all.first(where: { $0.key == key }) else { return nil }
        for name in setting.environment {
            if let value = environment[name], !value.isEmpty { return value }
        }
        return nil
    }

    func int(_ key: String) throws -> Int? {
        guard let text = string(key) else { return nil }
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)), value >= 0 else {
            throw ConfigurationError("\(key) must be a whole number ≥ 0, not '\(text)'")
        }
        return value
    }

    /// Seconds, as a number or a Go-style duration (`90s`, `5m`, `1h`).
    func seconds(_ key: String) throws -> Int? {
        guard let text = string(key)?.trimmingCharacters(in: .whitespaces) else { return nil }
        if let value = Int(text), value >= 0 { return value }
        let units: [Character: Int] = ["s": 1, "m": 60, "h": 3600]
        if let unit = text.last, let factor = units[unit], let value = Int(text.dropLast()), value >= 0 {
            return value * factor
        }
        throw ConfigurationError("\(key) must be seconds or a duration like 60s, not '\(text)'")
    }

    func bool(_ key: String) throws -> Bool? {
        guard let text = string(key)?.lowercased() else { return nil }
        switch text {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw ConfigurationError("\(key) must be true or false, not '\(text)'")
        }
    }

    func list(_ key: String) -> [String] {
        (string(key) ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
