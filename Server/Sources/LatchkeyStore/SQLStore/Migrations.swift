/// The schema, as numbered migrations. The SQL is written for both SQLite and PostgreSQL:
/// times are integer milliseconds (`BIGINT`), ids and JSON are `TEXT`.
enum Migrations {
    struct Migration {
        let version: Int
        let name: String
        let statements: [String]
    }

    static let all: [Migration] = [
        Migration(
            version: 1, name: "users, identities, one-time tokens, sessions, rate limits, dev mailbox",
            statements: [
                """
                CREATE TABLE users (
                    id TEXT PRIMARY KEY,
                    aud TEXT NOT NULL,
                    role TEXT NOT NULL,
                    email TEXT,
                    phone TEXT,
                    encrypted_password TEXT,
                    email_confirmed_at BIGINT,
                    phone_confirmed_at BIGINT,
                    confirmation_sent_at BIGINT,
                    recovery_sent_at BIGINT,
                    last_sign_in_at BIGINT,
                    raw_app_meta_data TEXT NOT NULL,
                    raw_user_meta_data TEXT NOT NULL,
                    is_anonymous INTEGER NOT NULL DEFAULT 0,
                    banned_until BIGINT,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL
                )
                """,
                "CREATE UNIQUE INDEX users_email_key ON users (email)",
                "CREATE UNIQUE INDEX users_phone_key ON users (phone)",
                """
                CREATE TABLE identities (
                    id TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                    provider TEXT NOT NULL,
                    provider_id TEXT NOT NULL,
                    identity_data TEXT NOT NULL,
                    email TEXT,
                    last_sign_in_at BIGINT,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL,
                    UNIQUE (provider, provider_id)
                )
                """,
                "CREATE INDEX identities_user_id_idx ON identities (user_id)",
                """
                CREATE TABLE one_time_tokens (
                    id TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                    kind TEXT NOT NULL,
                    relates_to TEXT NOT NULL,
                    code_hash TEXT NOT NULL,
                    link_hash TEXT NOT NULL UNIQUE,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    redirect_to TEXT,
                    created_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL,
                    consumed_at BIGINT
                )
                """,
                "CREATE INDEX one_time_tokens_user_idx ON one_time_tokens (user_id, kind)",
                """
                CREATE TABLE sessions (
                    id TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                    aal TEXT NOT NULL,
                    amr TEXT NOT NULL,
                    refresh_counter BIGINT NOT NULL,
                    refresh_salt TEXT NOT NULL,
                    refreshed_at BIGINT,
                    user_agent TEXT,
                    ip TEXT,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX sessions_user_id_idx ON sessions (user_id)",
                """
                CREATE TABLE rate_limits (
                    key TEXT NOT NULL,
                    window_start BIGINT NOT NULL,
                    count INTEGER NOT NULL,
                    expires_at BIGINT NOT NULL,
                    PRIMARY KEY (key, window_start)
                )
                """,
                "CREATE INDEX rate_limits_expires_idx ON rate_limits (expires_at)",
                """
                CREATE TABLE dev_mailbox (
                    id TEXT PRIMARY KEY,
                    recipients TEXT NOT NULL,
                    subject TEXT NOT NULL,
                    text_body TEXT NOT NULL,
                    html_body TEXT NOT NULL,
                    created_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX dev_mailbox_created_idx ON dev_mailbox (created_at)",
            ]),
        Migration(
            version: 2, name: "PKCE: code challenges on one-time tokens, flow states",
            statements: [
                "ALTER TABLE one_time_tokens ADD COLUMN code_challenge TEXT",
                "ALTER TABLE one_time_tokens ADD COLUMN code_challenge_method TEXT",
                """
                CREATE TABLE flow_states (
                    id TEXT PRIMARY KEY,
                    auth_code_hash TEXT NOT NULL UNIQUE,
                    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                    code_challenge TEXT NOT NULL,
                    code_challenge_method TEXT NOT NULL,
                    authentication_method TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL,
                    consumed_at BIGINT
                )
                """,
                "CREATE INDEX flow_states_expires_idx ON flow_states (expires_at)",
            ]),
        Migration(
            version: 3, name: "outbox: messages queued with what they announce, delivered with retries",
            statements: [
                """
                CREATE TABLE outbox (
                    id TEXT PRIMARY KEY,
                    channel TEXT NOT NULL,
                    recipient TEXT NOT NULL,
                    payload TEXT NOT NULL,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    next_attempt_at BIGINT NOT NULL,
                    locked_until BIGINT,
                    last_error TEXT,
                    created_at BIGINT NOT NULL,
                    sent_at BIGINT,
                    failed_at BIGINT
                )
                """,
                "CREATE INDEX outbox_pending_idx ON outbox (next_attempt_at) WHERE sent_at IS NULL AND failed_at IS NULL",
            ]),
        Migration(
            version: 4, name: "email and phone changes, reauthentication",
            statements: [
                "ALTER TABLE users ADD COLUMN email_change TEXT",
                "ALTER TABLE users ADD COLUMN email_change_sent_at BIGINT",
                "ALTER TABLE users ADD COLUMN email_change_confirm_needed INTEGER NOT NULL DEFAULT 0",
                "ALTER TABLE users ADD COLUMN reauthentication_sent_at BIGINT",
                "ALTER TABLE users ADD COLUMN phone_change TEXT",
                "ALTER TABLE users ADD COLUMN phone_change_sent_at BIGINT",
                "CREATE INDEX users_email_change_idx ON users (email_change)",
            ]),
        Migration(
            version: 5, name: "device keys and the assertions they signed",
            statements: [
                """
                CREATE TABLE device_keys (
                    id TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                    name TEXT NOT NULL,
                    public_key TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    last_used_at BIGINT
                )
                """,
                "CREATE INDEX device_keys_user_idx ON device_keys (user_id)",
                """
                CREATE TABLE device_key_assertions (
                    key_id TEXT NOT NULL,
                    jti TEXT NOT NULL,
                    expires_at BIGINT NOT NULL,
                    PRIMARY KEY (key_id, jti)
                )
                """,
                "CREATE INDEX device_key_assertions_expires_idx ON device_key_assertions (expires_at)",
            ]),
        Migration(
            version: 6, name: "PIN vaults and signer backups",
            statements: [
                """
                CREATE TABLE key_vaults (
                    id TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                    verifier_mac TEXT NOT NULL,
                    sealed_share TEXT,
                    failed_attempts INTEGER NOT NULL DEFAULT 0,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX key_vaults_user_idx ON key_vaults (user_id)",
                """
                CREATE TABLE signer_backups (
                    user_id TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
                    public_key TEXT NOT NULL,
                    recovery TEXT NOT NULL,
                    ciphertext TEXT NOT NULL,
                    kdf TEXT,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL
                )
                """,
                """
                CREATE TABLE signer_recovery_keys (
                    user_id TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
                    sealed_key TEXT NOT NULL,
                    created_at BIGINT NOT NULL
                )
                """,
            ]),
        Migration(
            version: 7, name: "audit log",
            statements: [
                // No foreign key on user_id: the record of an account outlives the account. `seq`
                // orders the events one transaction writes at the same instant.
                """
                CREATE TABLE audit_log (
                    id TEXT PRIMARY KEY,
                    action TEXT NOT NULL,
                    log_type TEXT NOT NULL,
                    actor_id TEXT,
                    actor_name TEXT NOT NULL,
                    user_id TEXT,
                    ip TEXT,
                    user_agent TEXT,
                    details TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    seq INTEGER NOT NULL
                )
                """,
                "CREATE INDEX audit_log_created_idx ON audit_log (created_at)",
                "CREATE INDEX audit_log_user_idx ON audit_log (user_id, created_at)",
                "CREATE INDEX audit_log_action_idx ON audit_log (action, created_at)",
            ]),
        Migration(
            version: 8, name: "TOTP factors and their challenges",
            statements: [
                """
                CREATE TABLE mfa_factors (
                    id TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                    friendly_name TEXT,
                    factor_type TEXT NOT NULL,
                    status TEXT NOT NULL,
                    sealed_secret TEXT NOT NULL,
                    last_used_step BIGINT,
                    failed_attempts INTEGER NOT NULL DEFAULT 0,
                    locked_until BIGINT,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL,
                    last_challenged_at BIGINT
                )
                """,
                "CREATE INDEX mfa_factors_user_idx ON mfa_factors (user_id)",
                "CREATE UNIQUE INDEX mfa_factors_name_key ON mfa_factors (user_id, friendly_name) WHERE friendly_name IS NOT NULL",
                """
                CREATE TABLE mfa_challenges (
                    id TEXT PRIMARY KEY,
                    factor_id TEXT NOT NULL REFERENCES mfa_factors (id) ON DELETE CASCADE,
                    ip TEXT,
                    created_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX mfa_challenges_factor_idx ON mfa_challenges (factor_id)",
            ]),
        Migration(version: 9, name: "invitations", statements: ["ALTER TABLE users ADD COLUMN invited_at BIGINT"]),
        Migration(
            version: 10, name: "signing keys in the store",
            statements: [
                """
                CREATE TABLE signing_keys (
                    kid TEXT PRIMARY KEY,
                    algorithm TEXT NOT NULL,
                    sealed_private_key TEXT NOT NULL,
                    public_jwk TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    signs_from BIGINT NOT NULL
                )
                """
            ]),
        Migration(
            version: 11, name: "a version on users: writes land only on the copy they were decided from",
            statements: ["ALTER TABLE users ADD COLUMN version BIGINT NOT NULL DEFAULT 0"]),
        Migration(
            version: 12, name: "device keys remember their device's session: ending other sessions ends other devices' keys",
            statements: ["ALTER TABLE device_keys ADD COLUMN session_id TEXT"]),
        Migration(
            version: 13, name: "dev mailbox: messages found by recipient through an index, not a scan",
            statements: [
                """
                CREATE TABLE dev_mailbox_recipients (
                    message_id TEXT NOT NULL REFERENCES dev_mailbox (id) ON DELETE CASCADE,
                    address TEXT NOT NULL,
                    created_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX dev_mailbox_recipients_idx ON dev_mailbox_recipients (address, created_at)",
                // Messages from before, with their one recipient (a JSON array of one string).
                """
                INSERT INTO dev_mailbox_recipients (message_id, address, created_at)
                SELECT id, LOWER(SUBSTR(recipients, 3, LENGTH(recipients) - 4)), created_at FROM dev_mailbox
                WHERE recipients LIKE '["%"]' AND recipients NOT LIKE '%","%'
                """,
            ]),
        Migration(
            version: 14, name: "the server secret's verifier: instances with another secret refuse to start",
            statements: ["CREATE TABLE server_settings (name TEXT PRIMARY KEY, value TEXT NOT NULL)"]),
        Migration(
            version: 15, name: "custom OpenID providers (custom:<name>), their client secrets sealed",
            statements: [
                """
                CREATE TABLE custom_oauth_providers (
                    id TEXT PRIMARY KEY,
                    identifier TEXT NOT NULL UNIQUE,
                    name TEXT NOT NULL,
                    client_id TEXT NOT NULL,
                    client_secret TEXT NOT NULL,
                    acceptable_client_ids TEXT NOT NULL,
                    scopes TEXT NOT NULL,
                    pkce_enabled INTEGER NOT NULL,
                    enabled INTEGER NOT NULL,
                    email_optional INTEGER NOT NULL,
                    skip_nonce_check INTEGER NOT NULL,
                    issuer TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL
                )
                """
            ]),
        Migration(
            version: 16, name: "passkeys (WebAuthn credentials) and their single-use challenges",
            statements: [
                """
                CREATE TABLE webauthn_credentials (
                    id TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                    credential_id TEXT NOT NULL UNIQUE,
                    public_key TEXT NOT NULL,
                    attestation_type TEXT NOT NULL,
                    aaguid TEXT NOT NULL,
                    sign_count BIGINT NOT NULL,
                    transports TEXT NOT NULL,
                    backup_eligible INTEGER NOT NULL,
                    backed_up INTEGER NOT NULL,
                    friendly_name TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL,
                    last_used_at BIGINT
                )
                """,
                "CREATE INDEX webauthn_credentials_user_idx ON webauthn_credentials (user_id)",
                """
                CREATE TABLE webauthn_challenges (
                    id TEXT PRIMARY KEY,
                    user_id TEXT REFERENCES users (id) ON DELETE CASCADE,
                    ceremony TEXT NOT NULL,
                    challenge TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX webauthn_challenges_expires_idx ON webauthn_challenges (expires_at)",
            ]),
        Migration(
            version: 17, name: "flow states that hand a hosted page's session to the app",
            statements: [
                "ALTER TABLE flow_states ADD COLUMN session_id TEXT REFERENCES sessions (id) ON DELETE CASCADE"
            ]),
        Migration(
            version: 18, name: "webhook endpoints; their deliveries ride the outbox",
            statements: [
                """
                CREATE TABLE webhook_endpoints (
                    id TEXT PRIMARY KEY,
                    url TEXT NOT NULL,
                    sealed_secret TEXT NOT NULL,
                    events TEXT NOT NULL,
                    source TEXT NOT NULL,
                    created_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX outbox_webhook_idx ON outbox (recipient, created_at) WHERE channel = 'webhook'",
            ]),
        Migration(
            version: 19, name: "providers' refresh tokens, sealed, revoked when the account is deleted (Sign in with Apple)",
            statements: [
                """
                CREATE TABLE provider_grants (
                    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                    provider TEXT NOT NULL,
                    subject TEXT NOT NULL,
                    client_id TEXT NOT NULL,
                    refresh_token TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    PRIMARY KEY (user_id, provider, subject)
                )
                """
            ]),
        Migration(
            version: 20, name: "phone factors: a factor's number, a challenge's code (hashed), one verified factor per number",
            statements: [
                "ALTER TABLE mfa_factors ADD COLUMN phone TEXT",
                "ALTER TABLE mfa_challenges ADD COLUMN code_hash TEXT",
                """
                CREATE UNIQUE INDEX mfa_factors_verified_phone_key ON mfa_factors (user_id, phone) \
                WHERE status = 'verified' AND phone IS NOT NULL
                """,
            ]),
        Migration(
            version: 21, name: "recovery codes: single use, stored hashed, a set per user",
            statements: [
                """
                CREATE TABLE recovery_codes (
                    id TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                    code_hash TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    used_at BIGINT
                )
                """,
                "CREATE INDEX recovery_codes_user_idx ON recovery_codes (user_id)",
            ]),
        Migration(
            version: 22, name: "WebAuthn factors: a factor's key, its credential id one factor's",
            statements: [
                "ALTER TABLE mfa_factors ADD COLUMN webauthn_credential TEXT",
                "ALTER TABLE mfa_factors ADD COLUMN webauthn_credential_id TEXT",
                """
                CREATE UNIQUE INDEX mfa_factors_webauthn_credential_key ON mfa_factors (webauthn_credential_id) \
                WHERE webauthn_credential_id IS NOT NULL
                """,
            ]),
        Migration(
            version: 23, name: "the OAuth server's clients: secrets hashed, deleted ones kept",
            statements: [
                """
                CREATE TABLE oauth_clients (
                    id TEXT PRIMARY KEY,
                    secret_hash TEXT,
                    registration_type TEXT NOT NULL,
                    client_type TEXT NOT NULL,
                    token_endpoint_auth_method TEXT NOT NULL,
                    redirect_uris TEXT NOT NULL,
                    grant_types TEXT NOT NULL,
                    client_name TEXT,
                    client_uri TEXT,
                    logo_uri TEXT,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL,
                    deleted_at BIGINT
                )
                """
            ]),
        Migration(
            version: 24, name: "the OAuth server's flow: requests and their hashed codes, users' consents, clients' sessions",
            statements: [
                """
                CREATE TABLE oauth_authorizations (
                    id TEXT PRIMARY KEY,
                    authorization_id TEXT NOT NULL UNIQUE,
                    client_id TEXT NOT NULL REFERENCES oauth_clients (id),
                    user_id TEXT REFERENCES users (id) ON DELETE CASCADE,
                    redirect_uri TEXT NOT NULL,
                    scope TEXT NOT NULL,
                    state TEXT,
                    resource TEXT,
                    code_challenge TEXT NOT NULL,
                    code_challenge_method TEXT NOT NULL,
                    nonce TEXT,
                    status TEXT NOT NULL,
                    code_hash TEXT UNIQUE,
                    aal TEXT,
                    amr TEXT,
                    session_id TEXT,
                    created_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL,
                    approved_at BIGINT
                )
                """,
                "CREATE INDEX oauth_authorizations_user_client_idx ON oauth_authorizations (user_id, client_id)",
                "CREATE INDEX oauth_authorizations_expires_idx ON oauth_authorizations (expires_at)",
                """
                CREATE TABLE oauth_consents (
                    id TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                    client_id TEXT NOT NULL REFERENCES oauth_clients (id),
                    scopes TEXT NOT NULL,
                    granted_at BIGINT NOT NULL,
                    revoked_at BIGINT,
                    UNIQUE (user_id, client_id)
                )
                """,
                "ALTER TABLE sessions ADD COLUMN oauth_client_id TEXT",
                "ALTER TABLE sessions ADD COLUMN scopes TEXT",
                "ALTER TABLE sessions ADD COLUMN resource TEXT",
                "CREATE INDEX sessions_oauth_client_idx ON sessions (oauth_client_id) WHERE oauth_client_id IS NOT NULL",
            ]),
    ]
}
