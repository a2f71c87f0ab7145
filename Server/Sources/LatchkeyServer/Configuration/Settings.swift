import Foundation
import LatchkeyAPI
import LatchkeyCore

extension Setting {
    /// Every setting `latchkey serve` reads, in the order docs/configuration.md lists them.
    public static let all: [Setting] = declarations.map(\.entry)

    /// The typed declarations behind ``all``.
    static let declarations: [any SettingDeclaration] =
        core + codes + mfa + external + passkeys + oauthServer + pages + operations + hooks + captcha

    static let core: [any SettingDeclaration] = [
        profile,
        host,
        port,
        dataDir,
        database,
        dbSchema,
        dbPoolSize,
        dbPreparedStatements,
        serverSecret,
        serverSecretFile,
        dbCAFile,
        siteURL,
        externalURL,
        uriAllowList,
        appName,
        jwtSecret,
        jwtKeys,
        jwtExp,
        jwtAud,
        jwtIssuer,
        jwtAdminRoles,
        disableSignup,
        anonymousUsers,
        anonymousUsersRetentionDays,
        dbCleanupEnabled,
        rateLimitAnonymousUsers,
        mailerAutoconfirm,
        linkConfirmationPage,
        mailerSecureEmailChange,
        flowStateExpiry,
    ]
}

extension Setting {
    static let profile = text(
        "profile", ["LATCHKEY_PROFILE"], shown: "gotrue with any GOTRUE_* setting, else strict",
        summary:
            "Whose defaults hold where GoTrue's differ from Latchkey's (the Default column says both): `strict`, Latchkey's; `gotrue`, GoTrue's, so that a GoTrue deployment's configuration behaves as GoTrue did. The start-up banner names it, and under `gotrue` lists what Latchkey would harden (`latchkey config check`)."
    )

    static let host = text(
        "host", ["LATCHKEY_HOST", "GOTRUE_API_HOST"], default: "127.0.0.1",
        summary: "Address to listen on (`0.0.0.0` for every interface, as in a container).")

    static let port = count(
        "port", ["LATCHKEY_PORT", "GOTRUE_API_PORT", "PORT"], default: 9999, in: 0...65535, summary: "Port to listen on.")

    static let dataDir = text(
        "data-dir", ["LATCHKEY_DATA_DIR"], default: "./latchkey-data",
        summary: "Folder for the SQLite database, the generated signing key and the server secret.")

    static let database = text(
        "database", ["LATCHKEY_DATABASE", "DATABASE_URL", "GOTRUE_DB_DATABASE_URL"], shown: "<data-dir>/latchkey.sqlite",
        summary:
            "SQLite file path or `sqlite://PATH`; or PostgreSQL, `postgres://user:password@host:5432/database?sslmode=disable|prefer|require`, for several instances on one database."
    )

    static let dbSchema = text(
        "db-schema", ["LATCHKEY_DB_SCHEMA", "GOTRUE_DB_DB_NAMESPACE", "DB_NAMESPACE", "GOTRUE_DB_NAMESPACE"], default: "auth",
        summary:
            "PostgreSQL: the schema for Latchkey's tables (created when missing), so it can share a database. GoTrue reads `GOTRUE_DB_DB_NAMESPACE`, else `DB_NAMESPACE`; `GOTRUE_DB_NAMESPACE`, which GoTrue never read, is read last because Latchkey's docs once named it."
    )

    static let dbPoolSize = count(
        "db-pool-size", ["LATCHKEY_DB_POOL_SIZE", "GOTRUE_DB_MAX_POOL_SIZE"], default: 10, in: 0...500,
        summary: "PostgreSQL: connections per instance.")

    static let dbPreparedStatements = flag(
        "db-prepared-statements", ["LATCHKEY_DB_PREPARED_STATEMENTS"], default: true,
        summary:
            "PostgreSQL: prepare each statement once per connection (parsed and planned once). `false` behind a pooler in transaction mode that cannot keep them (PgBouncer before 1.21 without `max_prepared_statements`)."
    )

    static let serverSecret = text(
        "server-secret", ["LATCHKEY_SERVER_SECRET"], shown: "<data-dir>/server-secret",
        summary:
            "The server secret (base64 of at least 32 random bytes: `openssl rand -base64 32`). It keys refresh tokens and seals stored secrets; every instance on one database needs the same one. Unset: the data folder's `server-secret` when there is one, else one derived from `jwt-secret` when that is set (replicas with GoTrue's configuration agree; docs/scaling.md says what that costs), else a new `server-secret` made on first start. The database keeps a verifier of it, and an instance with another secret refuses to start."
    )

    static let serverSecretFile = text(
        "server-secret-file", ["LATCHKEY_SERVER_SECRET_FILE"],
        summary: "A file holding the server secret (a mounted secret), instead of `server-secret`.")

    static let dbCAFile = text(
        "db-ca-file", ["LATCHKEY_DB_CA_FILE"], summary: "PostgreSQL: PEM file of CA certificates to trust for TLS instead of the system's.")

    static let siteURL = text(
        "site-url", ["LATCHKEY_SITE_URL", "GOTRUE_SITE_URL"], default: "http://localhost:3000",
        summary: "The app's URL: where links send users by default.")

    static let externalURL = text(
        "external-url", ["LATCHKEY_EXTERNAL_URL", "GOTRUE_API_API_EXTERNAL_URL", "API_EXTERNAL_URL"], shown: "http://<host>:<port>",
        summary: "This server's public URL, used in email links and as the JWT issuer.")

    static let uriAllowList = list(
        "uri-allow-list", ["LATCHKEY_URI_ALLOW_LIST", "GOTRUE_URI_ALLOW_LIST"],
        summary: "Comma-separated redirect URLs allowed besides the site URL (`*`, `**` globs).")

    static let appName = text(
        "app-name", ["LATCHKEY_APP_NAME"], default: "Latchkey", summary: "Application name used in emails.")

    static let jwtSecret = text(
        "jwt-secret", ["LATCHKEY_JWT_SECRET", "GOTRUE_JWT_SECRET"],
        summary:
            "HS256 secret. When set without a JWK set, tokens are signed with it (GoTrue's default); it also verifies tokens without a known `kid`."
    )

    static let jwtKeys = text(
        "jwt-keys", ["LATCHKEY_JWT_KEYS", "GOTRUE_JWT_KEYS"],
        summary:
            "JSON array of JWKs (EC P-256, RSA, OKP Ed25519, oct). The first with `key_ops` containing `sign` (else the first private key) signs; the others verify."
    )

    static let jwtExp = count(
        "jwt-exp", ["LATCHKEY_JWT_EXP", "GOTRUE_JWT_EXP"], default: 3600, summary: "Access-token lifetime in seconds.")

    static let jwtAud = text(
        "jwt-aud", ["LATCHKEY_JWT_AUD", "GOTRUE_JWT_AUD"], default: "authenticated", summary: "The `aud` claim.")

    static let jwtIssuer = text(
        "jwt-issuer", ["LATCHKEY_JWT_ISSUER", "GOTRUE_JWT_ISSUER"], shown: "<external-url>", summary: "The `iss` claim.")

    static let jwtAdminRoles = list(
        "jwt-admin-roles", ["LATCHKEY_JWT_ADMIN_ROLES", "GOTRUE_JWT_ADMIN_ROLES"], default: ["service_role", "supabase_admin"],
        summary: "Roles that make a token an admin token.")

    static let disableSignup = flag(
        "disable-signup", ["LATCHKEY_DISABLE_SIGNUP", "GOTRUE_DISABLE_SIGNUP"], default: false, summary: "Refuse new users.")

    static let anonymousUsers = flag(
        "anonymous-users", ["LATCHKEY_ANONYMOUS_USERS", "GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED"], default: false,
        summary:
            "Let `POST /signup` with neither email nor phone make an anonymous user (`is_anonymous`), who becomes permanent by adding an email or phone (`PUT /user`)."
    )

    static let anonymousUsersRetentionDays = count(
        "anonymous-users-retention-days", ["LATCHKEY_ANONYMOUS_USERS_RETENTION_DAYS"], shown: "0",
        summary:
            "Delete anonymous users made more than this many days ago, with everything they own (checked every 5 minutes); 0 keeps them. `latchkey users cleanup-anonymous --older-than DAYS` does it on demand."
    )

    static let dbCleanupEnabled = flag(
        "db-cleanup-enabled", ["GOTRUE_DB_CLEANUP_ENABLED"], default: false,
        summary:
            "GoTrue's clean-up switch: when on and `anonymous-users-retention-days` is unset, anonymous users older than 30 days are deleted, as GoTrue does. (Expired codes, windows and finished mail are always cleaned up.)"
    )

    static let rateLimitAnonymousUsers = count(
        "rate-limit-anonymous-users", ["LATCHKEY_RATE_LIMIT_ANONYMOUS_USERS", "GOTRUE_RATE_LIMIT_ANONYMOUS_USERS"], default: 30,
        summary: "Anonymous sign-ins per client IP per hour.")

    static let mailerAutoconfirm = flag(
        "mailer-autoconfirm", ["LATCHKEY_MAILER_AUTOCONFIRM", "GOTRUE_MAILER_AUTOCONFIRM"], default: false,
        summary: "Treat addresses as confirmed at sign-up (sign-up then returns a session).")

    static let linkConfirmationPage = flag(
        "link-confirmation-page", ["LATCHKEY_LINK_CONFIRMATION_PAGE"], default: true,
        summary:
            "`GET /verify` shows a page whose button completes the sign-in, so mail scanners cannot burn links. `false` redirects at once, as GoTrue."
    )

    static let mailerSecureEmailChange = flag(
        "mailer-secure-email-change", ["LATCHKEY_MAILER_SECURE_EMAIL_CHANGE", "GOTRUE_MAILER_SECURE_EMAIL_CHANGE_ENABLED"], default: true,
        summary: "An email change is confirmed from both the current and the new address (also with autoconfirm on, unlike GoTrue).")

    static let flowStateExpiry = seconds(
        "flow-state-expiry", ["LATCHKEY_FLOW_STATE_EXPIRY", "GOTRUE_EXTERNAL_FLOW_STATE_EXPIRY_DURATION"], default: 300,
        summary: "Seconds a PKCE authorization code from a link waits to be exchanged.")
}
