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
        var poolSize = try reader[\.dbPoolSize]
        // GoTrue's 0 means no limit of its own: the default here.
        if poolSize == 0 { poolSize = Setting.dbPoolSize.defaultValue }
        let caFile = reader[\.dbCAFile]
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw ConfigurationError("db-ca-file \(caFile) cannot be read")
        }
        var options = PostgresDatabase.Options(
            url: url, schema: reader[\.dbSchema], poolSize: poolSize, caFile: caFile)
        options.preparedStatements = try reader[\.dbPreparedStatements]
        do {
            try options.validate()
        } catch let error as StoreSetupError {
            throw ConfigurationError(error.description)
        }
        return options
    }

    /// The server secret from the environment or a file, checked (never echoed in an error).
    static func serverSecret(_ reader: SettingReader) throws -> [UInt8]? {
        let text = reader[\.serverSecret], file = reader[\.serverSecretFile]
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
        let host = reader[\.host]
        let port = try reader[\.port]
        let dataDirectory = reader[\.dataDir]
        var databasePath: String?
        var postgres: PostgresDatabase.Options?
        if let database = reader[\.database] {
            if database.hasPrefix("sqlite://") {
                databasePath = String(database.dropFirst("sqlite://".count))
            } else if database.hasPrefix("postgres://") || database.hasPrefix("postgresql://") {
                postgres = try Self.postgresOptions(database, reader: reader)
            } else {
                databasePath = database
            }
        }
        let externalURL = reader[\.externalURL] ?? "http://\(host == "0.0.0.0" ? "127.0.0.1" : host):\(port)"

        var jwtKeys: [[String: JSONValue]] = []
        if let raw = reader[\.jwtKeys] {
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

        var otpLength = try reader[\.otpLength]
        // As GoTrue, a length it would not send is its default.
        if !(6...10).contains(otpLength) { otpLength = Setting.otpLength.defaultValue }
        let logN = try reader[\.passwordScryptLogN]
        let hashConcurrency = try reader[\.passwordHashConcurrency] ?? ProcessInfo.processInfo.activeProcessorCount
        let subjectKeys: [(Setting.Path<String?>, MessageKind)] = [
            (\.mailerSubjectsConfirmation, .confirmation), (\.mailerSubjectsMagicLink, .magicLink), (\.mailerSubjectsRecovery, .recovery),
            (\.mailerSubjectsEmailChange, .emailChange), (\.mailerSubjectsInvite, .invite),
            (\.mailerSubjectsReauthentication, .reauthentication),
        ]
        var subjects: [MessageKind: String] = [:]
        for (path, kind) in subjectKeys { if let subject = reader[path] { subjects[kind] = subject } }
        let templates: MessageTemplates
        do {
            templates = try MessageTemplates.load(
                directory: reader[\.templatesDir], subjects: subjects, sms: reader[\.smsTemplate], mfaSMS: reader[\.mfaPhoneTemplate])
        } catch let error as TemplateError {
            throw ConfigurationError(error.description)
        }

        var testOTPs: [String: String] = [:]
        for pair in reader[\.smsTestOTP] {
            let parts = pair.split(separator: ":").map { $0.trimmingCharacters(in: .whitespaces) }
            let number = parts.first.map { $0.hasPrefix("+") ? String($0.dropFirst()) : $0 } ?? ""
            guard parts.count == 2, !number.isEmpty, number.allSatisfy(\.isNumber), !parts[1].isEmpty, parts[1].allSatisfy(\.isNumber)
            else { throw ConfigurationError("sms-test-otp must be number:code pairs separated by commas, not '\(pair)'") }
            testOTPs[number] = parts[1]
        }
        var testOTPValidUntil: Date?
        if let text = reader[\.smsTestOTPValidUntil] {
            guard let date = WireJSON.parseDate(text) else {
                throw ConfigurationError("sms-test-otp-valid-until must be an RFC 3339 time, not '\(text)'")
            }
            testOTPValidUntil = date
        }
        var smsLength = try reader[\.smsOTPLength]
        if !(6...10).contains(smsLength) { smsLength = Setting.smsOTPLength.defaultValue }
        let smsSettings = SMSSettings(
            enabled: try reader[\.phoneEnabled], autoconfirm: try reader[\.smsAutoconfirm],
            expiry: try reader[\.smsOTPExp], length: smsLength,
            sendFrequency: try reader[\.smsMaxFrequency],
            testOTPs: testOTPs, testOTPValidUntil: testOTPValidUntil)
        var twilio: TwilioConfiguration?
        var unusableSMSProvider: String?
        var warnings: [String] = []
        switch reader[\.smsProvider]?.lowercased() {
        case nil: break
        case "twilio":
            // As GoTrue: incomplete credentials do not stop the server; sending an SMS fails.
            let sid = reader[\.smsTwilioAccountSID], sender = reader[\.smsTwilioMessageServiceSID]
            let apiKey = reader[\.smsTwilioApiKey]
            let hasSecret =
                reader[\.smsTwilioAuthToken] != nil || (apiKey != nil && reader[\.smsTwilioApiSecret] != nil)
            if let sid, let sender, hasSecret {
                twilio = TwilioConfiguration(
                    accountSID: sid, authToken: reader[\.smsTwilioAuthToken], apiKey: apiKey,
                    apiSecret: reader[\.smsTwilioApiSecret], sender: sender,
                    apiURL: reader[\.smsTwilioApiURL])
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
        let otpPerFiveMinutes = try reader.ifSet(\.rateLimitOTP)
        let otpPerHour =
            try reader.ifSet(\.rateLimitOTPPerHour)
            ?? otpPerFiveMinutes.map { RateLimit(count: min($0, Int.max / 12) * 12, period: 3600) } ?? reader[\.rateLimitOTPPerHour]
        var auth = AuthConfiguration(
            siteURL: reader[\.siteURL], externalURL: externalURL,
            uriAllowList: reader[\.uriAllowList], appName: reader[\.appName],
            disableSignup: try reader[\.disableSignup],
            mailerAutoconfirm: try reader[\.mailerAutoconfirm],
            linkConfirmationPage: try reader[\.linkConfirmationPage],
            secureEmailChange: try reader[\.mailerSecureEmailChange],
            flowStateExpiry: try reader[\.flowStateExpiry],
            userMetadataMaxBytes: try reader[\.userMetadataMaxBytes],
            jwt: JWTSettings(
                expiry: try reader[\.jwtExp], audience: reader[\.jwtAud],
                issuer: reader[\.jwtIssuer] ?? "",  // unset: Core signs with the external URL, GoTrue's default
                adminRoles: reader[\.jwtAdminRoles].isEmpty ? Setting.jwtAdminRoles.defaultValue : reader[\.jwtAdminRoles]),
            otp: OTPSettings(
                expiry: try reader[\.otpExp], length: otpLength,
                maxAttempts: AttemptCap.configured(try reader[\.otpMaxAttempts]),
                sendFrequency: try reader[\.smtpMaxFrequency]),
            password: PasswordSettings(
                minLength: try reader[\.passwordMinLength], maxBytes: try reader[\.passwordMaxBytes],
                blockCommon: try reader[\.passwordBlockCommon], scryptLogN: logN,
                requireCurrentPassword: try reader[\.passwordRequireCurrent],
                requireReauthentication: try reader[\.passwordRequireReauthentication]),
            sessions: SessionSettings(
                refreshReuseInterval: try reader[\.refreshReuseInterval],
                timebox: try reader[\.sessionsTimebox],
                inactivityTimeout: try reader[\.sessionsInactivityTimeout]),
            rateLimits: RateLimitSettings(
                tokenPerIP: .init(count: try reader[\.rateLimitToken], period: 300),
                verifyPerIP: .init(count: try reader[\.rateLimitVerify], period: 300),
                otpPerIP: .init(count: try reader[\.rateLimitOTP], period: 300),
                otpPerIPHourly: otpPerHour,
                emailSent: try reader[\.rateLimitEmailSent],
                emailPerAddress: try reader[\.rateLimitEmailPerAddress],
                signInFailuresPerAccount: try reader[\.rateLimitSigninFailures],
                smsSent: try reader[\.rateLimitSMSSent],
                smsPerNumber: try reader[\.rateLimitSMSPerNumber],
                mfaPerIP: .init(count: try reader[\.rateLimitMFA], period: 60)),
            sms: smsSettings,
            mfa: MFASettings(
                totpEnrollEnabled: try reader[\.mfaTOTPEnrollEnabled],
                totpVerifyEnabled: try reader[\.mfaTOTPVerifyEnabled],
                maxEnrolledFactors: try reader[\.mfaMaxEnrolledFactors],
                challengeExpiry: try reader[\.mfaChallengeExpiry],
                maxAttempts: AttemptCap.configured(try reader[\.mfaMaxAttempts]),
                lockout: try reader[\.mfaLockout]))
        auth.mfa.phone = try Self.phoneFactorSettings(reader)
        auth.mfa.maxVerifiedFactors = try reader[\.mfaMaxVerifiedFactors]
        auth.mfa.factorExpiry = max(300, try reader[\.mfaFactorExpiry])
        auth.anonymousUsers = try reader[\.anonymousUsers]
        auth.external = try Self.externalSettings(reader, externalURL: externalURL)
        auth.mfa.webAuthn = try Self.webAuthnFactorSettings(reader)
        auth.oauthServer = OAuthClients.Settings(
            enabled: try reader[\.oauthServerEnabled], dynamicRegistration: try reader[\.oauthServerAllowDynamicRegistration],
            registrationsPerIP: RateLimit(count: try reader[\.rateLimitOAuthDynamicClientRegister], period: 300))
        auth.oauthFlow = try Self.oauthFlowSettings(reader, siteURL: auth.siteURL, tokenPerIP: auth.rateLimits.tokenPerIP)
        auth.passkeys = try Self.passkeySettings(
            reader, externalURL: externalURL, appName: auth.appName,
            factors: auth.mfa.webAuthn.enrollEnabled || auth.mfa.webAuthn.verifyEnabled)
        let appleApps = try AppleAppSiteAssociation.read(reader)
        // GoTrue's clean-up deletes anonymous users after 30 days when GOTRUE_DB_CLEANUP_ENABLED is on.
        let goTrueCleanup = try reader[\.dbCleanupEnabled]
        auth.anonymousUserRetentionDays = try reader[\.anonymousUsersRetentionDays] ?? (goTrueCleanup ? 30 : 0)
        auth.rateLimits.anonymousPerIP = .init(count: try reader[\.rateLimitAnonymousUsers], period: 3600)

        var smtp: SMTPConfiguration?
        if let smtpHost = reader[\.smtpHost] {
            guard let sender = reader[\.smtpAdminEmail], EmailAddress.canonical(sender) != nil else {
                throw ConfigurationError("smtp-admin-email (GOTRUE_SMTP_ADMIN_EMAIL) must be a valid address when smtp-host is set")
            }
            let smtpPort = try reader[\.smtpPort]
            let tlsText = reader[\.smtpTLS]
            guard let security = SMTPConfiguration.Security(rawValue: tlsText.lowercased()) else {
                throw ConfigurationError("smtp-tls must be auto, starttls, tls or none, not '\(tlsText)'")
            }
            let caFile = reader[\.smtpCAFile]
            if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
                throw ConfigurationError("smtp-ca-file \(caFile) cannot be read")
            }
            smtp = SMTPConfiguration(
                host: smtpHost, port: smtpPort, username: reader[\.smtpUser], password: reader[\.smtpPass],
                senderAddress: sender, senderName: reader[\.smtpSenderName], security: security, caFile: caFile,
                timeout: .seconds(max(1, try reader[\.smtpTimeout])),
                heloName: URL(string: externalURL)?.host ?? "localhost")
        }
        let auditRetention = try reader[\.auditRetentionDays]
        let mailRetry = MailRetryPolicy(
            maxAttempts: try reader[\.mailMaxAttempts], baseDelay: Double(try reader[\.mailRetryBase])
        )

        var configuration = ServerConfiguration(
            host: host, port: port, dataDirectory: dataDirectory, databasePath: databasePath, postgres: postgres,
            trustedIPHeader: reader[\.rateLimitHeader], jwtKeys: jwtKeys, jwtSecret: reader[\.jwtSecret],
            hashingThreads: hashConcurrency, devMailboxPublic: try reader[\.devMailboxPublic], auth: auth,
            smtp: smtp, mailRetry: mailRetry,
            twilio: twilio, keyReloadInterval: max(1, try reader[\.keysReloadInterval]),
            auditRetentionDays: auditRetention)
        configuration.serverSecret = try serverSecret(reader)
        configuration.httpTimeouts = try Self.httpTimeouts(reader)
        configuration.outbound = OutboundPolicy(allowInternal: try reader[\.outboundAllowPrivate])
        configuration.templates = templates
        configuration.pages = try Self.pageSettings(reader, appName: auth.appName)
        // No consent page of the app's: the hosted one, when the pages are on.
        if configuration.auth.oauthFlow.consentPage == nil, configuration.pages.enabled {
            configuration.auth.oauthFlow.consentPage = HostedFlow.consentPage(externalURL: configuration.auth.externalURL)
        }
        configuration.logging = try Self.logSettings(reader)
        configuration.metrics = try Self.metricsSettings(reader)
        configuration.hooks = try Self.hookSettings(reader)
        configuration.webhook = try Self.webhookSettings(reader)
        configuration.tracing = try Self.tracingEnabled(reader, environment: environment)
        configuration.trustedProxies = try reader[\.trustedProxies].map { text in
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
        configuration.auth.web3 = Web3SignIn.Settings(
            ethereum: try reader[\.externalWeb3EthereumEnabled], solana: try reader[\.externalWeb3SolanaEnabled],
            ethereumValidity: try reader[\.externalWeb3EthereumMaximumValidityDuration],
            solanaValidity: try reader[\.externalWeb3SolanaMaximumValidityDuration],
            perIP: RateLimit(count: try reader[\.rateLimitWeb3], period: 300))
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
        if let value = try reader.explicit(\.rateLimitPerIP) { return value }
        return reader.profile == .strict || configuration.trustedIPHeader != nil || !configuration.trustedProxies.isEmpty
    }
}

extension ServerConfiguration {
    /// GoTrue's captcha settings, checked as GoTrue checks them: only when captcha is on, then a
    /// known provider and a secret, or the server does not start.
    static func captchaSettings(_ reader: SettingReader) throws -> CaptchaSettings? {
        guard try reader[\.captchaEnabled] else { return nil }
        let name = reader[\.captchaProvider]
        guard let provider = CaptchaSettings.Provider(rawValue: name.lowercased()) else {
            throw ConfigurationError("captcha-provider (GOTRUE_SECURITY_CAPTCHA_PROVIDER) must be hcaptcha or turnstile, not '\(name)'")
        }
        guard let secret = reader[\.captchaSecret]?.trimmingCharacters(in: .whitespacesAndNewlines), !secret.isEmpty else {
            throw ConfigurationError("captcha is on but captcha-secret (GOTRUE_SECURITY_CAPTCHA_SECRET) is empty")
        }
        let timeout = try reader[\.captchaTimeout]
        let verifyURL = reader[\.captchaVerifyURL]
        if let verifyURL, !IssuerURL.isAcceptable(verifyURL) {
            throw ConfigurationError("captcha-verify-url must be an https:// URL (or http:// on a loopback address), not '\(verifyURL)'")
        }
        return CaptchaSettings(
            provider: provider, secret: secret, timeout: .seconds(timeout == 0 ? 10 : timeout), verifyURL: verifyURL,
            siteKey: reader[\.captchaSiteKey])
    }
}

extension ServerConfiguration {
    /// Phone factors (`GOTRUE_MFA_PHONE_*`), with GoTrue's corrections: a length outside 6–10 and
    /// a frequency of 0 are their defaults.
    static func phoneFactorSettings(_ reader: SettingReader) throws -> PhoneFactorSettings {
        var length = try reader[\.mfaPhoneOTPLength]
        if !(6...10).contains(length) { length = Setting.mfaPhoneOTPLength.defaultValue }
        let frequency = try reader[\.mfaPhoneMaxFrequency]
        return PhoneFactorSettings(
            enrollEnabled: try reader[\.mfaPhoneEnrollEnabled], verifyEnabled: try reader[\.mfaPhoneVerifyEnabled], length: length,
            sendFrequency: frequency == 0 ? Setting.mfaPhoneMaxFrequency.defaultValue : frequency)
    }

    /// WebAuthn factors (`GOTRUE_MFA_WEB_AUTHN_*`).
    static func webAuthnFactorSettings(_ reader: SettingReader) throws -> WebAuthnFactorSettings {
        let verification = reader[\.mfaWebAuthnUserVerification].lowercased()
        guard verification == "required" || verification == "preferred" else {
            throw ConfigurationError(
                "mfa-webauthn-user-verification (LATCHKEY_MFA_WEB_AUTHN_USER_VERIFICATION) must be required or preferred")
        }
        return WebAuthnFactorSettings(
            enrollEnabled: try reader[\.mfaWebAuthnEnrollEnabled], verifyEnabled: try reader[\.mfaWebAuthnVerifyEnabled],
            requireUserVerification: verification == "required")
    }
}
