import Foundation
import LatchkeyCore

extension Setting {
    /// Codes and links, passwords, sessions, rate limits, SMS, SMTP and the outbox.
    static let codes: [any SettingDeclaration] = [
        otpExp,
        otpLength,
        otpMaxAttempts,
        smtpMaxFrequency,
        passwordMinLength,
        passwordMaxBytes,
        passwordBlockCommon,
        passwordRequireCurrent,
        passwordRequireReauthentication,
        passwordScryptLogN,
        passwordHashConcurrency,
        keysReloadInterval,
        refreshReuseInterval,
        sessionsTimebox,
        sessionsInactivityTimeout,
        rateLimitPerIP,
        rateLimitToken,
        rateLimitVerify,
        rateLimitMFA,
        rateLimitOTP,
        rateLimitOTPPerHour,
        userMetadataMaxBytes,
        rateLimitEmailSent,
        rateLimitEmailPerAddress,
        rateLimitSigninFailures,
        devMailboxPublic,
        templatesDir,
        mailerSubjectsConfirmation,
        mailerSubjectsMagicLink,
        mailerSubjectsRecovery,
        mailerSubjectsEmailChange,
        mailerSubjectsInvite,
        mailerSubjectsReauthentication,
        smsTemplate,
        phoneEnabled,
        smsAutoconfirm,
        smsOTPExp,
        smsOTPLength,
        smsMaxFrequency,
        smsTestOTP,
        smsTestOTPValidUntil,
        rateLimitSMSSent,
        rateLimitSMSPerNumber,
        smsProvider,
        smsTwilioAccountSID,
        smsTwilioAuthToken,
        smsTwilioApiKey,
        smsTwilioApiSecret,
        smsTwilioMessageServiceSID,
        smsTwilioApiURL,
        smtpHost,
        smtpPort,
        smtpUser,
        smtpPass,
        smtpAdminEmail,
        smtpSenderName,
        smtpTLS,
        smtpCAFile,
        smtpTimeout,
        auditRetentionDays,
        mailMaxAttempts,
        mailRetryBase,
        trustedProxies,
        rateLimitHeader,
    ]
}

extension Setting {
    static let otpExp = seconds(
        "otp-exp", ["LATCHKEY_OTP_EXP", "GOTRUE_MAILER_OTP_EXP"], default: 600, goTrue: 86400,
        summary: "Seconds a code or link stays valid.")

    static let otpLength = count(
        "otp-length", ["LATCHKEY_OTP_LENGTH", "GOTRUE_MAILER_OTP_LENGTH"], default: 6, summary: "Digits in a code (6–10).")

    static let otpMaxAttempts = count(
        "otp-max-attempts", ["LATCHKEY_OTP_MAX_ATTEMPTS"], default: 5, goTrue: 0,
        summary: "Wrong submissions after which a code is void (0: no cap, as GoTrue).")

    static let smtpMaxFrequency = seconds(
        "smtp-max-frequency", ["LATCHKEY_SEND_FREQUENCY", "GOTRUE_SMTP_MAX_FREQUENCY"], default: 60,
        summary: "Seconds between two codes to one user (`60s` and `1m` forms accepted).")

    static let passwordMinLength = count(
        "password-min-length", ["LATCHKEY_PASSWORD_MIN_LENGTH", "GOTRUE_PASSWORD_MIN_LENGTH"], default: 15, goTrue: 6,
        summary: "Fewest characters in a password (NIST SP 800-63B-4 for password-only accounts).")

    static let passwordMaxBytes = count(
        "password-max-bytes", ["LATCHKEY_PASSWORD_MAX_BYTES"], default: 1024,
        summary: "Most UTF-8 bytes in a password, checked before hashing.")

    static let passwordBlockCommon = flag(
        "password-block-common", ["LATCHKEY_PASSWORD_BLOCK_COMMON", "GOTRUE_PASSWORD_HIBP_ENABLED"], default: true, goTrue: false,
        summary:
            "Refuse the 20,000 most common passwords. GoTrue's HaveIBeenPwned check (`GOTRUE_PASSWORD_HIBP_ENABLED`) turns it on instead of calling out."
    )

    static let passwordRequireCurrent = flag(
        "password-require-current", ["LATCHKEY_PASSWORD_REQUIRE_CURRENT", "GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_CURRENT_PASSWORD"],
        default: false, summary: "`PUT /user` needs `current_password` to replace an existing password.")

    static let passwordRequireReauthentication = flag(
        "password-require-reauthentication",
        ["LATCHKEY_PASSWORD_REQUIRE_REAUTHENTICATION", "GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION"], default: false,
        summary: "Changing the password or email from a session older than 24 hours needs the `nonce` from `GET /reauthenticate`.")

    static let passwordScryptLogN = count(
        "password-scrypt-log-n", ["LATCHKEY_PASSWORD_SCRYPT_LOG_N"], default: 17, in: 1...22,
        summary: "scrypt cost log2(N) (r=8, p=1). 17 is OWASP's minimum; lower only for tests.")

    static let passwordHashConcurrency = count(
        "password-hash-concurrency", ["LATCHKEY_PASSWORD_HASH_CONCURRENCY"], shown: "the core count", in: 1...256,
        summary:
            "Password hashes computed at once (1–256); more wait their turn. Each holds 128 × r × N bytes while it runs: 128 MiB at the default cost."
    )

    static let keysReloadInterval = seconds(
        "keys-reload-interval", ["LATCHKEY_KEYS_RELOAD_INTERVAL"], default: 30,
        summary: "Seconds between re-reads of the stored signing keys: a `latchkey keys rotate` reaches a running server within this.")

    static let refreshReuseInterval = seconds(
        "refresh-reuse-interval", ["LATCHKEY_REFRESH_REUSE_INTERVAL", "GOTRUE_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL"], default: 10,
        goTrue: 0, summary: "Seconds in which the previous refresh token still returns the same successor.")

    static let sessionsTimebox = seconds(
        "sessions-timebox", ["LATCHKEY_SESSIONS_TIMEBOX", "GOTRUE_SESSIONS_TIMEBOX"], default: 0,
        summary: "Longest session life in seconds (0: none).")

    static let sessionsInactivityTimeout = seconds(
        "sessions-inactivity-timeout", ["LATCHKEY_SESSIONS_INACTIVITY_TIMEOUT", "GOTRUE_SESSIONS_INACTIVITY_TIMEOUT"], default: 0,
        summary: "Seconds without refresh after which a session ends (0: never).")

    static let rateLimitPerIP = flag(
        "rate-limit-per-ip", ["LATCHKEY_RATE_LIMIT_PER_IP"], default: true, shownForGoTrue: "with-header",
        summary:
            "Whether the per-client-IP limits (`rate-limit-token`, `-verify`, `-otp`, `-otp-per-hour`, `-mfa`, `-anonymous-users`, `-passkey`) count. GoTrue counts them only with `GOTRUE_RATE_LIMIT_HEADER`; under the `gotrue` profile they count when `rate-limit-header` or `trusted-proxies` is set, so clients behind one address do not share one budget."
    )

    static let rateLimitToken = count(
        "rate-limit-token", ["LATCHKEY_RATE_LIMIT_TOKEN", "GOTRUE_RATE_LIMIT_TOKEN_REFRESH"], default: 150,
        summary: "`/token` requests per client IP per 5 minutes.")

    static let rateLimitVerify = count(
        "rate-limit-verify", ["LATCHKEY_RATE_LIMIT_VERIFY", "GOTRUE_RATE_LIMIT_VERIFY"], default: 30,
        summary: "`/verify` requests per client IP per 5 minutes.")

    static let rateLimitMFA = count(
        "rate-limit-mfa", ["LATCHKEY_RATE_LIMIT_MFA", "GOTRUE_MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY"], default: 15,
        summary: "MFA challenges and verifications per client IP per minute.")

    static let rateLimitOTP = count(
        "rate-limit-otp", ["LATCHKEY_RATE_LIMIT_OTP", "GOTRUE_RATE_LIMIT_OTP"], default: 30,
        summary: "`/signup`, `/otp`, `/resend`, `PUT /user` per client IP per 5 minutes.")

    static let rateLimitOTPPerHour = limit(
        "rate-limit-otp-per-hour", ["LATCHKEY_RATE_LIMIT_OTP_PER_HOUR"], default: 60, per: 3600, goTrue: .off,
        summary:
            "The same requests per client IP per hour, well under `rate-limit-email-sent`, so that a few addresses cannot spend every user's email budget. GoTrue has no such limit: when `rate-limit-otp` is set and this is not, it is 12 times `rate-limit-otp` (what that allows in an hour, GoTrue's behaviour)."
    )

    static let userMetadataMaxBytes = count(
        "user-metadata-max-bytes", ["LATCHKEY_USER_METADATA_MAX_BYTES"], default: 16384,
        summary:
            "Largest `user_metadata` (`data` at sign-up and `/otp`, `PUT /user`, the admin API's `user_metadata`), in bytes of JSON after merging; larger is `400 validation_failed`. It is copied into every access token. GoTrue has no limit below the request size."
    )

    static let rateLimitEmailSent = limit(
        "rate-limit-email-sent", ["LATCHKEY_RATE_LIMIT_EMAIL_SENT", "GOTRUE_RATE_LIMIT_EMAIL_SENT"], default: 1000, per: 3600, goTrue: 30,
        summary: "Emails per hour in total (all instances); GoTrue's `N/duration` form (`100/30m`) too.")

    static let rateLimitEmailPerAddress = limit(
        "rate-limit-email-per-address", ["LATCHKEY_RATE_LIMIT_EMAIL_PER_ADDRESS"], default: 10, per: 3600, goTrue: .off,
        summary: "Emails per hour to one address (`off`: none, as GoTrue).")

    static let rateLimitSigninFailures = limit(
        "rate-limit-signin-failures", ["LATCHKEY_RATE_LIMIT_SIGNIN_FAILURES"], default: 10, per: 900, goTrue: .off,
        summary: "Failed password sign-ins per account per 15 minutes, from any IP (`off`: none, as GoTrue).")

    static let devMailboxPublic = flag(
        "dev-mailbox-public", ["LATCHKEY_DEV_MAILBOX_PUBLIC"], default: false,
        summary:
            "Let clients on other machines read `/_dev/mailbox` (only while no mail transport is configured). Off: the mailbox exists only while the server listens on loopback (`127.0.0.1`, `::1`, `localhost`) and no rate-limit header is trusted, and answers only loopback requests that carry no forwarding header (`X-Forwarded-For`, `Forwarded`, `X-Real-IP`): behind a reverse proxy on the same host it is off, since the messages carry sign-in codes."
    )

    static let templatesDir = text(
        "templates-dir", ["LATCHKEY_TEMPLATES_DIR"],
        summary:
            "Folder of Mustache files overriding messages: `<kind>.subject.mustache`, `<kind>.text.mustache`, `<kind>.html.mustache` (see docs/templates.md)."
    )

    static let mailerSubjectsConfirmation = text(
        "mailer-subjects-confirmation", ["LATCHKEY_MAILER_SUBJECTS_CONFIRMATION", "GOTRUE_MAILER_SUBJECTS_CONFIRMATION"],
        shown: "Confirm your email address", summary: "Subject of the sign-up confirmation (a Mustache template).")

    static let mailerSubjectsMagicLink = text(
        "mailer-subjects-magic-link", ["LATCHKEY_MAILER_SUBJECTS_MAGIC_LINK", "GOTRUE_MAILER_SUBJECTS_MAGIC_LINK"],
        shown: "Your sign-in code", summary: "Subject of the sign-in code and link.")

    static let mailerSubjectsRecovery = text(
        "mailer-subjects-recovery", ["LATCHKEY_MAILER_SUBJECTS_RECOVERY", "GOTRUE_MAILER_SUBJECTS_RECOVERY"], shown: "Reset your password",
        summary: "Subject of the password reset.")

    static let mailerSubjectsEmailChange = text(
        "mailer-subjects-email-change", ["LATCHKEY_MAILER_SUBJECTS_EMAIL_CHANGE", "GOTRUE_MAILER_SUBJECTS_EMAIL_CHANGE"],
        shown: "Confirm your new email address", summary: "Subject of the email-change confirmation to the new address.")

    static let mailerSubjectsInvite = text(
        "mailer-subjects-invite", ["LATCHKEY_MAILER_SUBJECTS_INVITE", "GOTRUE_MAILER_SUBJECTS_INVITE"],
        shown: "You have been invited to {{application.name}}", summary: "Subject of invitations.")

    static let mailerSubjectsReauthentication = text(
        "mailer-subjects-reauthentication", ["LATCHKEY_MAILER_SUBJECTS_REAUTHENTICATION", "GOTRUE_MAILER_SUBJECTS_REAUTHENTICATION"],
        shown: "Confirm it is you", summary: "Subject of the reauthentication code.")

    static let smsTemplate = text(
        "sms-template", ["LATCHKEY_SMS_TEMPLATE", "GOTRUE_SMS_TEMPLATE"],
        shown: "Your {{application.name}} code is {{code}}. It expires in {{expires_in_minutes}} minutes.",
        summary: "The SMS text; GoTrue's `{{ .Code }}` works too.")

    static let phoneEnabled = flag(
        "phone-enabled", ["LATCHKEY_PHONE_ENABLED", "GOTRUE_EXTERNAL_PHONE_ENABLED"], default: true, goTrue: false,
        summary: "Phone sign-up and sign-in by SMS code. Without an SMS provider the messages go to the dev mailbox.")

    static let smsAutoconfirm = flag(
        "sms-autoconfirm", ["LATCHKEY_SMS_AUTOCONFIRM", "GOTRUE_SMS_AUTOCONFIRM"], default: false,
        summary: "Treat phone numbers as confirmed at sign-up.")

    static let smsOTPExp = seconds(
        "sms-otp-exp", ["LATCHKEY_SMS_OTP_EXP", "GOTRUE_SMS_OTP_EXP"], default: 300, goTrue: 60, summary: "Seconds an SMS code stays valid."
    )

    static let smsOTPLength = count(
        "sms-otp-length", ["LATCHKEY_SMS_OTP_LENGTH", "GOTRUE_SMS_OTP_LENGTH"], default: 6, summary: "Digits in an SMS code (6–10).")

    static let smsMaxFrequency = seconds(
        "sms-max-frequency", ["LATCHKEY_SMS_MAX_FREQUENCY", "GOTRUE_SMS_MAX_FREQUENCY"], default: 60,
        summary: "Seconds between two SMS codes to one number. A send the provider refused counts too.")

    static let smsTestOTP = list(
        "sms-test-otp", ["LATCHKEY_SMS_TEST_OTP", "GOTRUE_SMS_TEST_OTP"],
        summary: "`number:code,…` pairs whose fixed code is accepted and never sent (CI, app review).")

    static let smsTestOTPValidUntil = text(
        "sms-test-otp-valid-until", ["LATCHKEY_SMS_TEST_OTP_VALID_UNTIL", "GOTRUE_SMS_TEST_OTP_VALID_UNTIL"],
        summary: "RFC 3339 time after which the test codes stop working.")

    static let rateLimitSMSSent = limit(
        "rate-limit-sms-sent", ["LATCHKEY_RATE_LIMIT_SMS_SENT", "GOTRUE_RATE_LIMIT_SMS_SENT"], default: 100, per: 3600, goTrue: 30,
        summary: "SMS per hour in total (all instances); GoTrue's `N/duration` form too.")

    static let rateLimitSMSPerNumber = limit(
        "rate-limit-sms-per-number", ["LATCHKEY_RATE_LIMIT_SMS_PER_NUMBER"], default: 5, per: 3600, goTrue: .off,
        summary: "SMS per hour to one number (`off`: none; GoTrue has no such limit).")

    static let smsProvider = text(
        "sms-provider", ["LATCHKEY_SMS_PROVIDER", "GOTRUE_SMS_PROVIDER"], summary: "`twilio`, or unset for the dev mailbox.")

    static let smsTwilioAccountSID = text(
        "sms-twilio-account-sid", ["LATCHKEY_SMS_TWILIO_ACCOUNT_SID", "GOTRUE_SMS_TWILIO_ACCOUNT_SID"],
        summary: "Twilio account SID (`AC…`).")

    static let smsTwilioAuthToken = text(
        "sms-twilio-auth-token", ["LATCHKEY_SMS_TWILIO_AUTH_TOKEN", "GOTRUE_SMS_TWILIO_AUTH_TOKEN"],
        summary: "Twilio auth token (or use an API key).")

    static let smsTwilioApiKey = text(
        "sms-twilio-api-key", ["LATCHKEY_SMS_TWILIO_API_KEY"],
        summary: "Twilio API key SID (`SK…`), with `sms-twilio-api-secret`, instead of the auth token.")

    static let smsTwilioApiSecret = text(
        "sms-twilio-api-secret", ["LATCHKEY_SMS_TWILIO_API_SECRET"], summary: "The API key's secret.")

    static let smsTwilioMessageServiceSID = text(
        "sms-twilio-message-service-sid", ["LATCHKEY_SMS_TWILIO_MESSAGE_SERVICE_SID", "GOTRUE_SMS_TWILIO_MESSAGE_SERVICE_SID"],
        summary: "The sender: a number (`+1…`) or a messaging service SID (`MG…`).")

    static let smsTwilioApiURL = text(
        "sms-twilio-api-url", ["LATCHKEY_SMS_TWILIO_API_URL"], default: "https://api.twilio.com", summary: "Twilio's API base URL.")

    static let smtpHost = text(
        "smtp-host", ["LATCHKEY_SMTP_HOST", "GOTRUE_SMTP_HOST"],
        summary: "SMTP server for outgoing mail. Unset: mail goes to the dev mailbox.")

    static let smtpPort = count(
        "smtp-port", ["LATCHKEY_SMTP_PORT", "GOTRUE_SMTP_PORT"], default: 587, in: 1...65535,
        summary: "SMTP port; 465 means implicit TLS under `smtp-tls=auto`.")

    static let smtpUser = text(
        "smtp-user", ["LATCHKEY_SMTP_USER", "GOTRUE_SMTP_USER"],
        summary: "SMTP login (AUTH PLAIN, else LOGIN). Never sent without TLS except to a server on this machine.")

    static let smtpPass = text(
        "smtp-pass", ["LATCHKEY_SMTP_PASS", "GOTRUE_SMTP_PASS"], summary: "SMTP password.")

    static let smtpAdminEmail = text(
        "smtp-admin-email", ["LATCHKEY_SMTP_ADMIN_EMAIL", "GOTRUE_SMTP_ADMIN_EMAIL"],
        summary: "The From address; required with `smtp-host`.")

    static let smtpSenderName = text(
        "smtp-sender-name", ["LATCHKEY_SMTP_SENDER_NAME", "GOTRUE_SMTP_SENDER_NAME"], summary: "The From display name.")

    static let smtpTLS = text(
        "smtp-tls", ["LATCHKEY_SMTP_TLS"], default: "auto",
        summary:
            "`auto` (implicit TLS on 465, else STARTTLS when offered), `starttls` (required), `tls` (implicit), or `none`.")

    static let smtpCAFile = text(
        "smtp-ca-file", ["LATCHKEY_SMTP_CA_FILE"],
        summary: "PEM file of certificate authorities to trust for the SMTP server instead of the system's.")

    static let smtpTimeout = seconds(
        "smtp-timeout", ["LATCHKEY_SMTP_TIMEOUT"], default: 30, summary: "Seconds to wait for the SMTP connection and for each reply.")

    static let auditRetentionDays = count(
        "audit-retention-days", ["LATCHKEY_AUDIT_RETENTION_DAYS"], default: 0, in: 0...36500,
        summary: "Days the audit log keeps events (deleted by the cleanup every 5 minutes); 0 keeps them for ever.")

    static let mailMaxAttempts = count(
        "mail-max-attempts", ["LATCHKEY_MAIL_MAX_ATTEMPTS"], default: 12,
        summary:
            "Delivery attempts per queued message before it is given up on. Retries back off from `mail-retry-base` doubling to an hour.")

    static let mailRetryBase = seconds(
        "mail-retry-base", ["LATCHKEY_MAIL_RETRY_BASE"], default: 5, summary: "Seconds before the first retry of a failed delivery.")

    static let trustedProxies = list(
        "trusted-proxies", ["LATCHKEY_TRUSTED_PROXIES"],
        summary:
            "Comma-separated addresses or networks (`10.0.0.0/8, fd00::/8`) of the reverse proxies in front of the server. A request whose socket peer is one of them is from the right-most address in `X-Forwarded-For` (or `Forwarded`) that is not one of them; every other request is from its peer, whatever it sends. Unset, and no `rate-limit-header`: the peer, and one warning when requests carry `X-Forwarded-For` from a private address."
    )

    static let rateLimitHeader = text(
        "rate-limit-header", ["LATCHKEY_RATE_LIMIT_HEADER", "GOTRUE_RATE_LIMIT_HEADER"],
        summary:
            "Header carrying the client IP, trusted only when set (behind a proxy you run). Its **right-most** entry is the client: proxies append the address they saw, and the entries left of it are whatever the client sent (GoTrue takes the left-most, which a client behind an appending proxy forges). Unset: the socket's peer address."
    )
}
