import Foundation
import LatchkeyAPI
import LatchkeyCore

/// Every setting `latchkey serve` reads: its environment names (Latchkey's first, then GoTrue's),
/// default and meaning. `docs/configuration.md` is this table in prose; a test keeps them in step.
public struct Setting: Sendable {
    public let key: String
    public let environment: [String]
    public let defaultValue: String
    public let summary: String

    public static let all: [Setting] = core + external + passkeys + pages + operations + hooks + captcha

    static let core: [Setting] = [
        .init(
            key: "profile", environment: ["LATCHKEY_PROFILE"], defaultValue: "gotrue with any GOTRUE_* setting, else strict",
            summary:
                "Whose defaults hold where GoTrue's differ from Latchkey's (the Default column says both): `strict`, Latchkey's; `gotrue`, GoTrue's, so that a GoTrue deployment's configuration behaves as GoTrue did. The start-up banner names it, and under `gotrue` lists what Latchkey would harden (`latchkey config check`)."
        ),
        .init(
            key: "host", environment: ["LATCHKEY_HOST", "GOTRUE_API_HOST"], defaultValue: "127.0.0.1",
            summary: "Address to listen on (`0.0.0.0` for every interface, as in a container)."),
        .init(key: "port", environment: ["LATCHKEY_PORT", "GOTRUE_API_PORT", "PORT"], defaultValue: "9999", summary: "Port to listen on."),
        .init(
            key: "data-dir", environment: ["LATCHKEY_DATA_DIR"], defaultValue: "./latchkey-data",
            summary: "Folder for the SQLite database, the generated signing key and the server secret."),
        .init(
            key: "database", environment: ["LATCHKEY_DATABASE", "DATABASE_URL", "GOTRUE_DB_DATABASE_URL"],
            defaultValue: "<data-dir>/latchkey.sqlite",
            summary:
                "SQLite file path or `sqlite://PATH`; or PostgreSQL, `postgres://user:password@host:5432/database?sslmode=disable|prefer|require`, for several instances on one database."
        ),
        .init(
            key: "db-schema", environment: ["LATCHKEY_DB_SCHEMA", "GOTRUE_DB_DB_NAMESPACE", "DB_NAMESPACE", "GOTRUE_DB_NAMESPACE"],
            defaultValue: "auth",
            summary:
                "PostgreSQL: the schema for Latchkey's tables (created when missing), so it can share a database. GoTrue reads `GOTRUE_DB_DB_NAMESPACE`, else `DB_NAMESPACE`; `GOTRUE_DB_NAMESPACE`, which GoTrue never read, is read last because Latchkey's docs once named it."
        ),
        .init(
            key: "db-pool-size", environment: ["LATCHKEY_DB_POOL_SIZE", "GOTRUE_DB_MAX_POOL_SIZE"], defaultValue: "10",
            summary: "PostgreSQL: connections per instance."),
        .init(
            key: "db-prepared-statements", environment: ["LATCHKEY_DB_PREPARED_STATEMENTS"], defaultValue: "true",
            summary:
                "PostgreSQL: prepare each statement once per connection (parsed and planned once). `false` behind a pooler in transaction mode that cannot keep them (PgBouncer before 1.21 without `max_prepared_statements`)."
        ),
        .init(
            key: "server-secret", environment: ["LATCHKEY_SERVER_SECRET"], defaultValue: "<data-dir>/server-secret",
            summary:
                "The server secret (base64 of at least 32 random bytes: `openssl rand -base64 32`). It keys refresh tokens and seals stored secrets; every instance on one database needs the same one. Unset: the data folder's `server-secret` when there is one, else one derived from `jwt-secret` when that is set (replicas with GoTrue's configuration agree; docs/scaling.md says what that costs), else a new `server-secret` made on first start. The database keeps a verifier of it, and an instance with another secret refuses to start."
        ),
        .init(
            key: "server-secret-file", environment: ["LATCHKEY_SERVER_SECRET_FILE"], defaultValue: "",
            summary: "A file holding the server secret (a mounted secret), instead of `server-secret`."),
        .init(
            key: "db-ca-file", environment: ["LATCHKEY_DB_CA_FILE"], defaultValue: "",
            summary: "PostgreSQL: PEM file of CA certificates to trust for TLS instead of the system's."),
        .init(
            key: "site-url", environment: ["LATCHKEY_SITE_URL", "GOTRUE_SITE_URL"], defaultValue: "http://localhost:3000",
            summary: "The app's URL: where links send users by default."),
        .init(
            key: "external-url", environment: ["LATCHKEY_EXTERNAL_URL", "GOTRUE_API_API_EXTERNAL_URL", "API_EXTERNAL_URL"],
            defaultValue: "http://<host>:<port>",
            summary: "This server's public URL, used in email links and as the JWT issuer."),
        .init(
            key: "uri-allow-list", environment: ["LATCHKEY_URI_ALLOW_LIST", "GOTRUE_URI_ALLOW_LIST"], defaultValue: "",
            summary: "Comma-separated redirect URLs allowed besides the site URL (`*`, `**` globs)."),
        .init(key: "app-name", environment: ["LATCHKEY_APP_NAME"], defaultValue: "Latchkey", summary: "Application name used in emails."),
        .init(
            key: "jwt-secret", environment: ["LATCHKEY_JWT_SECRET", "GOTRUE_JWT_SECRET"], defaultValue: "",
            summary:
                "HS256 secret. When set without a JWK set, tokens are signed with it (GoTrue's default); it also verifies tokens without a known `kid`."
        ),
        .init(
            key: "jwt-keys", environment: ["LATCHKEY_JWT_KEYS", "GOTRUE_JWT_KEYS"], defaultValue: "",
            summary:
                "JSON array of JWKs (EC P-256, RSA, OKP Ed25519, oct). The first with `key_ops` containing `sign` (else the first private key) signs; the others verify."
        ),
        .init(
            key: "jwt-exp", environment: ["LATCHKEY_JWT_EXP", "GOTRUE_JWT_EXP"], defaultValue: "3600",
            summary: "Access-token lifetime in seconds."),
        .init(
            key: "jwt-aud", environment: ["LATCHKEY_JWT_AUD", "GOTRUE_JWT_AUD"], defaultValue: "authenticated", summary: "The `aud` claim."),
        .init(
            key: "jwt-issuer", environment: ["LATCHKEY_JWT_ISSUER", "GOTRUE_JWT_ISSUER"], defaultValue: "<external-url>",
            summary: "The `iss` claim."),
        .init(
            key: "jwt-admin-roles", environment: ["LATCHKEY_JWT_ADMIN_ROLES", "GOTRUE_JWT_ADMIN_ROLES"],
            defaultValue: "service_role,supabase_admin", summary: "Roles that make a token an admin token."),
        .init(
            key: "disable-signup", environment: ["LATCHKEY_DISABLE_SIGNUP", "GOTRUE_DISABLE_SIGNUP"], defaultValue: "false",
            summary: "Refuse new users."),
        .init(
            key: "anonymous-users", environment: ["LATCHKEY_ANONYMOUS_USERS", "GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED"],
            defaultValue: "false",
            summary:
                "Let `POST /signup` with neither email nor phone make an anonymous user (`is_anonymous`), who becomes permanent by adding an email or phone (`PUT /user`)."
        ),
        .init(
            key: "anonymous-users-retention-days", environment: ["LATCHKEY_ANONYMOUS_USERS_RETENTION_DAYS"], defaultValue: "0",
            summary:
                "Delete anonymous users made more than this many days ago, with everything they own (checked every 5 minutes); 0 keeps them. `latchkey users cleanup-anonymous --older-than DAYS` does it on demand."
        ),
        .init(
            key: "db-cleanup-enabled", environment: ["GOTRUE_DB_CLEANUP_ENABLED"], defaultValue: "false",
            summary:
                "GoTrue's clean-up switch: when on and `anonymous-users-retention-days` is unset, anonymous users older than 30 days are deleted, as GoTrue does. (Expired codes, windows and finished mail are always cleaned up.)"
        ),
        .init(
            key: "rate-limit-anonymous-users",
            environment: ["LATCHKEY_RATE_LIMIT_ANONYMOUS_USERS", "GOTRUE_RATE_LIMIT_ANONYMOUS_USERS"], defaultValue: "30",
            summary: "Anonymous sign-ins per client IP per hour."),
        .init(
            key: "mailer-autoconfirm", environment: ["LATCHKEY_MAILER_AUTOCONFIRM", "GOTRUE_MAILER_AUTOCONFIRM"], defaultValue: "false",
            summary: "Treat addresses as confirmed at sign-up (sign-up then returns a session)."),
        .init(
            key: "link-confirmation-page", environment: ["LATCHKEY_LINK_CONFIRMATION_PAGE"], defaultValue: "true",
            summary:
                "`GET /verify` shows a page whose button completes the sign-in, so mail scanners cannot burn links. `false` redirects at once, as GoTrue."
        ),
        .init(
            key: "mailer-secure-email-change",
            environment: ["LATCHKEY_MAILER_SECURE_EMAIL_CHANGE", "GOTRUE_MAILER_SECURE_EMAIL_CHANGE_ENABLED"], defaultValue: "true",
            summary: "An email change is confirmed from both the current and the new address (also with autoconfirm on, unlike GoTrue)."),
        .init(
            key: "flow-state-expiry", environment: ["LATCHKEY_FLOW_STATE_EXPIRY", "GOTRUE_EXTERNAL_FLOW_STATE_EXPIRY_DURATION"],
            defaultValue: "300", summary: "Seconds a PKCE authorization code from a link waits to be exchanged."),
        .init(
            key: "otp-exp", environment: ["LATCHKEY_OTP_EXP", "GOTRUE_MAILER_OTP_EXP"], defaultValue: "600",
            summary: "Seconds a code or link stays valid."),
        .init(
            key: "otp-length", environment: ["LATCHKEY_OTP_LENGTH", "GOTRUE_MAILER_OTP_LENGTH"], defaultValue: "6",
            summary: "Digits in a code (6–10)."),
        .init(
            key: "otp-max-attempts", environment: ["LATCHKEY_OTP_MAX_ATTEMPTS"], defaultValue: "5",
            summary: "Wrong submissions after which a code is void (0: no cap, as GoTrue)."),
        .init(
            key: "smtp-max-frequency", environment: ["LATCHKEY_SEND_FREQUENCY", "GOTRUE_SMTP_MAX_FREQUENCY"], defaultValue: "60",
            summary: "Seconds between two codes to one user (`60s` and `1m` forms accepted)."),
        .init(
            key: "password-min-length", environment: ["LATCHKEY_PASSWORD_MIN_LENGTH", "GOTRUE_PASSWORD_MIN_LENGTH"], defaultValue: "15",
            summary: "Fewest characters in a password (NIST SP 800-63B-4 for password-only accounts)."),
        .init(
            key: "password-max-bytes", environment: ["LATCHKEY_PASSWORD_MAX_BYTES"], defaultValue: "1024",
            summary: "Most UTF-8 bytes in a password, checked before hashing."),
        .init(
            key: "password-block-common", environment: ["LATCHKEY_PASSWORD_BLOCK_COMMON", "GOTRUE_PASSWORD_HIBP_ENABLED"],
            defaultValue: "true",
            summary:
                "Refuse the 20,000 most common passwords. GoTrue's HaveIBeenPwned check (`GOTRUE_PASSWORD_HIBP_ENABLED`) turns it on instead of calling out."
        ),
        .init(
            key: "password-require-current",
            environment: ["LATCHKEY_PASSWORD_REQUIRE_CURRENT", "GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_CURRENT_PASSWORD"],
            defaultValue: "false", summary: "`PUT /user` needs `current_password` to replace an existing password."),
        .init(
            key: "password-require-reauthentication",
            environment: ["LATCHKEY_PASSWORD_REQUIRE_REAUTHENTICATION", "GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION"],
            defaultValue: "false",
            summary: "Changing the password or email from a session older than 24 hours needs the `nonce` from `GET /reauthenticate`."),
        .init(
            key: "password-scrypt-log-n", environment: ["LATCHKEY_PASSWORD_SCRYPT_LOG_N"], defaultValue: "17",
            summary: "scrypt cost log2(N) (r=8, p=1). 17 is OWASP's minimum; lower only for tests."),
        .init(
            key: "password-hash-concurrency", environment: ["LATCHKEY_PASSWORD_HASH_CONCURRENCY"], defaultValue: "the core count",
            summary:
                "Password hashes computed at once (1–256); more wait their turn. Each holds 128 × r × N bytes while it runs: 128 MiB at the default cost."
        ),
        .init(
            key: "keys-reload-interval", environment: ["LATCHKEY_KEYS_RELOAD_INTERVAL"], defaultValue: "30",
            summary: "Seconds between re-reads of the stored signing keys: a `latchkey keys rotate` reaches a running server within this."),
        .init(
            key: "refresh-reuse-interval",
            environment: ["LATCHKEY_REFRESH_REUSE_INTERVAL", "GOTRUE_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL"], defaultValue: "10",
            summary: "Seconds in which the previous refresh token still returns the same successor."),
        .init(
            key: "sessions-timebox", environment: ["LATCHKEY_SESSIONS_TIMEBOX", "GOTRUE_SESSIONS_TIMEBOX"], defaultValue: "0",
            summary: "Longest session life in seconds (0: none)."),
        .init(
            key: "sessions-inactivity-timeout",
            environment: ["LATCHKEY_SESSIONS_INACTIVITY_TIMEOUT", "GOTRUE_SESSIONS_INACTIVITY_TIMEOUT"], defaultValue: "0",
            summary: "Seconds without refresh after which a session ends (0: never)."),
        .init(
            key: "rate-limit-per-ip", environment: ["LATCHKEY_RATE_LIMIT_PER_IP"], defaultValue: "true",
            summary:
                "Whether the per-client-IP limits (`rate-limit-token`, `-verify`, `-otp`, `-otp-per-hour`, `-mfa`, `-anonymous-users`, `-passkey`) count. GoTrue counts them only with `GOTRUE_RATE_LIMIT_HEADER`; under the `gotrue` profile they count when `rate-limit-header` or `trusted-proxies` is set, so clients behind one address do not share one budget."
        ),
        .init(
            key: "rate-limit-token", environment: ["LATCHKEY_RATE_LIMIT_TOKEN", "GOTRUE_RATE_LIMIT_TOKEN_REFRESH"], defaultValue: "150",
            summary: "`/token` requests per client IP per 5 minutes."),
        .init(
            key: "rate-limit-verify", environment: ["LATCHKEY_RATE_LIMIT_VERIFY", "GOTRUE_RATE_LIMIT_VERIFY"], defaultValue: "30",
            summary: "`/verify` requests per client IP per 5 minutes."),
        .init(
            key: "rate-limit-mfa", environment: ["LATCHKEY_RATE_LIMIT_MFA", "GOTRUE_MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY"],
            defaultValue: "15", summary: "MFA challenges and verifications per client IP per minute."),
        .init(
            key: "mfa-totp-enroll-enabled", environment: ["LATCHKEY_MFA_TOTP_ENROLL_ENABLED", "GOTRUE_MFA_TOTP_ENROLL_ENABLED"],
            defaultValue: "true", summary: "Users may enrol TOTP authenticator apps as a second factor."),
        .init(
            key: "mfa-totp-verify-enabled", environment: ["LATCHKEY_MFA_TOTP_VERIFY_ENABLED", "GOTRUE_MFA_TOTP_VERIFY_ENABLED"],
            defaultValue: "true", summary: "TOTP codes may be verified (raising a session to `aal2`)."),
        .init(
            key: "mfa-max-enrolled-factors", environment: ["LATCHKEY_MFA_MAX_ENROLLED_FACTORS", "GOTRUE_MFA_MAX_ENROLLED_FACTORS"],
            defaultValue: "10", summary: "Second factors a user may have, verified or not."),
        .init(
            key: "mfa-challenge-expiry",
            environment: ["LATCHKEY_MFA_CHALLENGE_EXPIRY", "GOTRUE_MFA_CHALLENGE_EXPIRY_DURATION"], defaultValue: "300",
            summary: "Seconds an MFA challenge stays open."),
        .init(
            key: "mfa-max-attempts", environment: ["LATCHKEY_MFA_MAX_ATTEMPTS"], defaultValue: "5",
            summary: "Wrong TOTP codes in a row after which the factor locks (0: never, as GoTrue)."),
        .init(
            key: "mfa-lockout", environment: ["LATCHKEY_MFA_LOCKOUT"], defaultValue: "900",
            summary: "Seconds a factor stays locked after too many wrong codes."),
        .init(
            key: "rate-limit-otp", environment: ["LATCHKEY_RATE_LIMIT_OTP", "GOTRUE_RATE_LIMIT_OTP"], defaultValue: "30",
            summary: "`/signup`, `/otp`, `/resend`, `PUT /user` per client IP per 5 minutes."),
        .init(
            key: "rate-limit-otp-per-hour", environment: ["LATCHKEY_RATE_LIMIT_OTP_PER_HOUR"], defaultValue: "60",
            summary:
                "The same requests per client IP per hour, well under `rate-limit-email-sent`, so that a few addresses cannot spend every user's email budget. GoTrue has no such limit: when `rate-limit-otp` is set and this is not, it is 12 times `rate-limit-otp` (what that allows in an hour, GoTrue's behaviour)."
        ),
        .init(
            key: "user-metadata-max-bytes", environment: ["LATCHKEY_USER_METADATA_MAX_BYTES"], defaultValue: "16384",
            summary:
                "Largest `user_metadata` (`data` at sign-up and `/otp`, `PUT /user`, the admin API's `user_metadata`), in bytes of JSON after merging; larger is `400 validation_failed`. It is copied into every access token. GoTrue has no limit below the request size."
        ),
        .init(
            key: "rate-limit-email-sent", environment: ["LATCHKEY_RATE_LIMIT_EMAIL_SENT", "GOTRUE_RATE_LIMIT_EMAIL_SENT"],
            defaultValue: "1000", summary: "Emails per hour in total (all instances); GoTrue's `N/duration` form (`100/30m`) too."),
        .init(
            key: "rate-limit-email-per-address", environment: ["LATCHKEY_RATE_LIMIT_EMAIL_PER_ADDRESS"], defaultValue: "10",
            summary: "Emails per hour to one address (`off`: none, as GoTrue)."),
        .init(
            key: "rate-limit-signin-failures", environment: ["LATCHKEY_RATE_LIMIT_SIGNIN_FAILURES"], defaultValue: "10",
            summary: "Failed password sign-ins per account per 15 minutes, from any IP (`off`: none, as GoTrue)."),
        .init(
            key: "dev-mailbox-public", environment: ["LATCHKEY_DEV_MAILBOX_PUBLIC"], defaultValue: "false",
            summary:
                "Let clients on other machines read `/_dev/mailbox` (only while no mail transport is configured). Off: the mailbox exists only while the server listens on loopback (`127.0.0.1`, `::1`, `localhost`) and no rate-limit header is trusted, and answers only loopback requests that carry no forwarding header (`X-Forwarded-For`, `Forwarded`, `X-Real-IP`): behind a reverse proxy on the same host it is off, since the messages carry sign-in codes."
        ),
        .init(
            key: "templates-dir", environment: ["LATCHKEY_TEMPLATES_DIR"], defaultValue: "",
            summary:
                "Folder of Mustache files overriding messages: `<kind>.subject.mustache`, `<kind>.text.mustache`, `<kind>.html.mustache` (see docs/templates.md)."
        ),
        .init(
            key: "mailer-subjects-confirmation",
            environment: ["LATCHKEY_MAILER_SUBJECTS_CONFIRMATION", "GOTRUE_MAILER_SUBJECTS_CONFIRMATION"],
            defaultValue: "Confirm your email address", summary: "Subject of the sign-up confirmation (a Mustache template)."),
        .init(
            key: "mailer-subjects-magic-link", environment: ["LATCHKEY_MAILER_SUBJECTS_MAGIC_LINK", "GOTRUE_MAILER_SUBJECTS_MAGIC_LINK"],
            defaultValue: "Your sign-in code", summary: "Subject of the sign-in code and link."),
        .init(
            key: "mailer-subjects-recovery", environment: ["LATCHKEY_MAILER_SUBJECTS_RECOVERY", "GOTRUE_MAILER_SUBJECTS_RECOVERY"],
            defaultValue: "Reset your password", summary: "Subject of the password reset."),
        .init(
            key: "mailer-subjects-email-change",
            environment: ["LATCHKEY_MAILER_SUBJECTS_EMAIL_CHANGE", "GOTRUE_MAILER_SUBJECTS_EMAIL_CHANGE"],
            defaultValue: "Confirm your new email address", summary: "Subject of the email-change confirmation to the new address."),
        .init(
            key: "mailer-subjects-invite", environment: ["LATCHKEY_MAILER_SUBJECTS_INVITE", "GOTRUE_MAILER_SUBJECTS_INVITE"],
            defaultValue: "You have been invited to {{application.name}}", summary: "Subject of invitations."),
        .init(
            key: "mailer-subjects-reauthentication",
            environment: ["LATCHKEY_MAILER_SUBJECTS_REAUTHENTICATION", "GOTRUE_MAILER_SUBJECTS_REAUTHENTICATION"],
            defaultValue: "Confirm it is you", summary: "Subject of the reauthentication code."),
        .init(
            key: "sms-template", environment: ["LATCHKEY_SMS_TEMPLATE", "GOTRUE_SMS_TEMPLATE"],
            defaultValue: "Your {{application.name}} code is {{code}}. It expires in {{expires_in_minutes}} minutes.",
            summary: "The SMS text; GoTrue's `{{ .Code }}` works too."),
        .init(
            key: "phone-enabled", environment: ["LATCHKEY_PHONE_ENABLED", "GOTRUE_EXTERNAL_PHONE_ENABLED"], defaultValue: "true",
            summary: "Phone sign-up and sign-in by SMS code. Without an SMS provider the messages go to the dev mailbox."),
        .init(
            key: "sms-autoconfirm", environment: ["LATCHKEY_SMS_AUTOCONFIRM", "GOTRUE_SMS_AUTOCONFIRM"], defaultValue: "false",
            summary: "Treat phone numbers as confirmed at sign-up."),
        .init(
            key: "sms-otp-exp", environment: ["LATCHKEY_SMS_OTP_EXP", "GOTRUE_SMS_OTP_EXP"], defaultValue: "300",
            summary: "Seconds an SMS code stays valid."),
        .init(
            key: "sms-otp-length", environment: ["LATCHKEY_SMS_OTP_LENGTH", "GOTRUE_SMS_OTP_LENGTH"], defaultValue: "6",
            summary: "Digits in an SMS code (6–10)."),
        .init(
            key: "sms-max-frequency", environment: ["LATCHKEY_SMS_MAX_FREQUENCY", "GOTRUE_SMS_MAX_FREQUENCY"], defaultValue: "60",
            summary: "Seconds between two SMS codes to one number. A send the provider refused counts too."),
        .init(
            key: "sms-test-otp", environment: ["LATCHKEY_SMS_TEST_OTP", "GOTRUE_SMS_TEST_OTP"], defaultValue: "",
            summary: "`number:code,…` pairs whose fixed code is accepted and never sent (CI, app review)."),
        .init(
            key: "sms-test-otp-valid-until", environment: ["LATCHKEY_SMS_TEST_OTP_VALID_UNTIL", "GOTRUE_SMS_TEST_OTP_VALID_UNTIL"],
            defaultValue: "", summary: "RFC 3339 time after which the test codes stop working."),
        .init(
            key: "rate-limit-sms-sent", environment: ["LATCHKEY_RATE_LIMIT_SMS_SENT", "GOTRUE_RATE_LIMIT_SMS_SENT"], defaultValue: "100",
            summary: "SMS per hour in total (all instances); GoTrue's `N/duration` form too."),
        .init(
            key: "rate-limit-sms-per-number", environment: ["LATCHKEY_RATE_LIMIT_SMS_PER_NUMBER"], defaultValue: "5",
            summary: "SMS per hour to one number (`off`: none; GoTrue has no such limit)."),
        .init(
            key: "sms-provider", environment: ["LATCHKEY_SMS_PROVIDER", "GOTRUE_SMS_PROVIDER"], defaultValue: "",
            summary: "`twilio`, or unset for the dev mailbox."),
        .init(
            key: "sms-twilio-account-sid", environment: ["LATCHKEY_SMS_TWILIO_ACCOUNT_SID", "GOTRUE_SMS_TWILIO_ACCOUNT_SID"],
            defaultValue: "", summary: "Twilio account SID (`AC…`)."),
        .init(
            key: "sms-twilio-auth-token", environment: ["LATCHKEY_SMS_TWILIO_AUTH_TOKEN", "GOTRUE_SMS_TWILIO_AUTH_TOKEN"],
            defaultValue: "", summary: "Twilio auth token (or use an API key)."),
        .init(
            key: "sms-twilio-api-key", environment: ["LATCHKEY_SMS_TWILIO_API_KEY"], defaultValue: "",
            summary: "Twilio API key SID (`SK…`), with `sms-twilio-api-secret`, instead of the auth token."),
        .init(
            key: "sms-twilio-api-secret", environment: ["LATCHKEY_SMS_TWILIO_API_SECRET"], defaultValue: "",
            summary: "The API key's secret."),
        .init(
            key: "sms-twilio-message-service-sid",
            environment: ["LATCHKEY_SMS_TWILIO_MESSAGE_SERVICE_SID", "GOTRUE_SMS_TWILIO_MESSAGE_SERVICE_SID"], defaultValue: "",
            summary: "The sender: a number (`+1…`) or a messaging service SID (`MG…`)."),
        .init(
            key: "sms-twilio-api-url", environment: ["LATCHKEY_SMS_TWILIO_API_URL"], defaultValue: "https://api.twilio.com",
            summary: "Twilio's API base URL."),
        .init(
            key: "smtp-host", environment: ["LATCHKEY_SMTP_HOST", "GOTRUE_SMTP_HOST"], defaultValue: "",
            summary: "SMTP server for outgoing mail. Unset: mail goes to the dev mailbox."),
        .init(
            key: "smtp-port", environment: ["LATCHKEY_SMTP_PORT", "GOTRUE_SMTP_PORT"], defaultValue: "587",
            summary: "SMTP port; 465 means implicit TLS under `smtp-tls=auto`."),
        .init(
            key: "smtp-user", environment: ["LATCHKEY_SMTP_USER", "GOTRUE_SMTP_USER"], defaultValue: "",
            summary: "SMTP login (AUTH PLAIN, else LOGIN). Never sent without TLS except to a server on this machine."),
        .init(key: "smtp-pass", environment: ["LATCHKEY_SMTP_PASS", "GOTRUE_SMTP_PASS"], defaultValue: "", summary: "SMTP password."),
        .init(
            key: "smtp-admin-email", environment: ["LATCHKEY_SMTP_ADMIN_EMAIL", "GOTRUE_SMTP_ADMIN_EMAIL"], defaultValue: "",
            summary: "The From address; required with `smtp-host`."),
        .init(
            key: "smtp-sender-name", environment: ["LATCHKEY_SMTP_SENDER_NAME", "GOTRUE_SMTP_SENDER_NAME"], defaultValue: "",
            summary: "The From display name."),
        .init(
            key: "smtp-tls", environment: ["LATCHKEY_SMTP_TLS"], defaultValue: "auto",
            summary:
                "`auto` (implicit TLS on 465, else STARTTLS when offered), `starttls` (required), `tls` (implicit), or `none`."),
        .init(
            key: "smtp-ca-file", environment: ["LATCHKEY_SMTP_CA_FILE"], defaultValue: "",
            summary: "PEM file of certificate authorities to trust for the SMTP server instead of the system's."),
        .init(
            key: "smtp-timeout", environment: ["LATCHKEY_SMTP_TIMEOUT"], defaultValue: "30",
            summary: "Seconds to wait for the SMTP connection and for each reply."),
        .init(
            key: "audit-retention-days", environment: ["LATCHKEY_AUDIT_RETENTION_DAYS"], defaultValue: "0",
            summary: "Days the audit log keeps events (deleted by the cleanup every 5 minutes); 0 keeps them for ever."),
        .init(
            key: "mail-max-attempts", environment: ["LATCHKEY_MAIL_MAX_ATTEMPTS"], defaultValue: "12",
            summary:
                "Delivery attempts per queued message before it is given up on. Retries back off from `mail-retry-base` doubling to an hour."
        ),
        .init(
            key: "mail-retry-base", environment: ["LATCHKEY_MAIL_RETRY_BASE"], defaultValue: "5",
            summary: "Seconds before the first retry of a failed delivery."),
        .init(
            key: "trusted-proxies", environment: ["LATCHKEY_TRUSTED_PROXIES"], defaultValue: "",
            summary:
                "Comma-separated addresses or networks (`10.0.0.0/8, fd00::/8`) of the reverse proxies in front of the server. A request whose socket peer is one of them is from the right-most address in `X-Forwarded-For` (or `Forwarded`) that is not one of them; every other request is from its peer, whatever it sends. Unset, and no `rate-limit-header`: the peer, and one warning when requests carry `X-Forwarded-For` from a private address."
        ),
        .init(
            key: "rate-limit-header", environment: ["LATCHKEY_RATE_LIMIT_HEADER", "GOTRUE_RATE_LIMIT_HEADER"], defaultValue: "",
            summary:
                "Header carrying the client IP, trusted only when set (behind a proxy you run). Its **right-most** entry is the client: proxies append the address they saw, and the entries left of it are whatever the client sent (GoTrue takes the left-most, which a client behind an appending proxy forges). Unset: the socket's peer address."
        ),
    ]
}
