import Foundation

extension Setting {
    /// Auth hooks: the operator's HTTP endpoints, as GoTrue's `GOTRUE_HOOK_*`.
    static let hooks: [Setting] = [
        .init(
            key: "hook-send-email-enabled", environment: ["GOTRUE_HOOK_SEND_EMAIL_ENABLED"], defaultValue: "false",
            summary:
                "Send the emails Latchkey would send by SMTP through your endpoint instead (any mail API): it gets the user and `email_data` (code, link token, kind, redirect). Sent from the outbox, retried with back-off."
        ),
        .init(
            key: "hook-send-email-uri", environment: ["GOTRUE_HOOK_SEND_EMAIL_URI"], defaultValue: "",
            summary: "The endpoint: `https://…`, or `http://` to `localhost`, `127.0.0.1`, `::1` or `host.docker.internal` (GoTrue's rule)."
        ),
        .init(
            key: "hook-send-email-secrets", environment: ["GOTRUE_HOOK_SEND_EMAIL_SECRETS"], defaultValue: "",
            summary:
                "Standard Webhooks secrets `v1,whsec_<base64>`, several joined by `|`; each request carries one signature per secret. At least one."
        ),
        .init(
            key: "hook-send-sms-enabled", environment: ["GOTRUE_HOOK_SEND_SMS_ENABLED"], defaultValue: "false",
            summary:
                "Send SMS codes through your endpoint instead of Twilio (any SMS provider): it gets the user and `sms` (`otp`, `phone`)."
        ),
        .init(
            key: "hook-send-sms-uri", environment: ["GOTRUE_HOOK_SEND_SMS_URI"], defaultValue: "",
            summary: "The endpoint: `https://…`, or `http://` to `localhost`, `127.0.0.1`, `::1` or `host.docker.internal` (GoTrue's rule)."
        ),
        .init(
            key: "hook-send-sms-secrets", environment: ["GOTRUE_HOOK_SEND_SMS_SECRETS"], defaultValue: "",
            summary:
                "Standard Webhooks secrets `v1,whsec_<base64>`, several joined by `|`; each request carries one signature per secret. At least one."
        ),
        .init(
            key: "hook-custom-access-token-enabled", environment: ["GOTRUE_HOOK_CUSTOM_ACCESS_TOKEN_ENABLED"], defaultValue: "false",
            summary:
                "Your endpoint adds to or changes each access token's claims before it is signed (`claims` in, `claims` out); a failing hook fails the sign-in."
        ),
        .init(
            key: "hook-custom-access-token-uri", environment: ["GOTRUE_HOOK_CUSTOM_ACCESS_TOKEN_URI"], defaultValue: "",
            summary: "The endpoint: `https://…`, or `http://` to `localhost`, `127.0.0.1`, `::1` or `host.docker.internal` (GoTrue's rule)."
        ),
        .init(
            key: "hook-custom-access-token-secrets", environment: ["GOTRUE_HOOK_CUSTOM_ACCESS_TOKEN_SECRETS"], defaultValue: "",
            summary:
                "Standard Webhooks secrets `v1,whsec_<base64>`, several joined by `|`; each request carries one signature per secret. At least one."
        ),
        .init(
            key: "hook-before-user-created-enabled", environment: ["GOTRUE_HOOK_BEFORE_USER_CREATED_ENABLED"], defaultValue: "false",
            summary:
                "Your endpoint sees each new user before it is stored (sign-up, code or link, invitation, identity provider, anonymous) and may refuse it with `{\"error\": {\"http_code\": 403, \"message\": …}}`."
        ),
        .init(
            key: "hook-before-user-created-uri", environment: ["GOTRUE_HOOK_BEFORE_USER_CREATED_URI"], defaultValue: "",
            summary: "The endpoint: `https://…`, or `http://` to `localhost`, `127.0.0.1`, `::1` or `host.docker.internal` (GoTrue's rule)."
        ),
        .init(
            key: "hook-before-user-created-secrets", environment: ["GOTRUE_HOOK_BEFORE_USER_CREATED_SECRETS"], defaultValue: "",
            summary:
                "Standard Webhooks secrets `v1,whsec_<base64>`, several joined by `|`; each request carries one signature per secret. At least one."
        ),
        .init(
            key: "hook-password-verification-attempt-enabled", environment: ["GOTRUE_HOOK_PASSWORD_VERIFICATION_ATTEMPT_ENABLED"],
            defaultValue: "false",
            summary:
                "Your endpoint sees every password check of a known user (`user_id`, `valid`) and may answer `{\"decision\": \"reject\", \"message\": …, \"should_logout_user\": true}`."
        ),
        .init(
            key: "hook-password-verification-attempt-uri", environment: ["GOTRUE_HOOK_PASSWORD_VERIFICATION_ATTEMPT_URI"], defaultValue: "",
            summary: "The endpoint: `https://…`, or `http://` to `localhost`, `127.0.0.1`, `::1` or `host.docker.internal` (GoTrue's rule)."
        ),
        .init(
            key: "hook-password-verification-attempt-secrets", environment: ["GOTRUE_HOOK_PASSWORD_VERIFICATION_ATTEMPT_SECRETS"],
            defaultValue: "",
            summary:
                "Standard Webhooks secrets `v1,whsec_<base64>`, several joined by `|`; each request carries one signature per secret. At least one."
        ),
        .init(
            key: "hook-mfa-verification-attempt-enabled", environment: ["GOTRUE_HOOK_MFA_VERIFICATION_ATTEMPT_ENABLED"],
            defaultValue: "false",
            summary:
                "Your endpoint sees every TOTP code check (`user_id`, `factor_id`, `valid`) and may answer `{\"decision\": \"reject\"}`: the verification is refused and the user's sessions end."
        ),
        .init(
            key: "hook-mfa-verification-attempt-uri", environment: ["GOTRUE_HOOK_MFA_VERIFICATION_ATTEMPT_URI"], defaultValue: "",
            summary: "The endpoint: `https://…`, or `http://` to `localhost`, `127.0.0.1`, `::1` or `host.docker.internal` (GoTrue's rule)."
        ),
        .init(
            key: "hook-mfa-verification-attempt-secrets", environment: ["GOTRUE_HOOK_MFA_VERIFICATION_ATTEMPT_SECRETS"], defaultValue: "",
            summary:
                "Standard Webhooks secrets `v1,whsec_<base64>`, several joined by `|`; each request carries one signature per secret. At least one."
        ),
        .init(
            key: "hook-timeout", environment: ["LATCHKEY_HOOK_TIMEOUT"], defaultValue: "5",
            summary: "Seconds a hook call may take, retries included (GoTrue's 5): past it the request fails with `hook_timeout`."
        ),
        .init(
            key: "hook-protect-claims", environment: ["LATCHKEY_HOOK_PROTECT_CLAIMS"], defaultValue: "true",
            summary:
                "The custom access token hook may add claims and change the user's own (`role`, `email`, `phone`, the metadata) but not `iss`, `sub`, `aud`, `iat`, `session_id`, `aal`, `amr`, `is_anonymous`, nor make `exp` later. `false`: any change GoTrue's schema allows."
        ),
        .init(
            key: "webhook-url", environment: ["LATCHKEY_WEBHOOK_URL"], defaultValue: "",
            summary:
                "An endpoint that gets every event (`user.created`, `user.signed_in`, `user.email_changed`, `user.phone_changed`, `user.deleted`, `factor.added`, `factor.removed`) as a signed Standard Webhooks `POST`, queued with the change and retried with back-off. `https://`, or `http://` to this machine. More endpoints: `POST /admin/webhooks`, `latchkey webhooks add`."
        ),
        .init(
            key: "webhook-secret", environment: ["LATCHKEY_WEBHOOK_SECRET"], defaultValue: "",
            summary: "The Standard Webhooks secret (`v1,whsec_<base64>`) `webhook-url`'s deliveries are signed with; required with it."
        ),
        .init(
            key: "webhook-events", environment: ["LATCHKEY_WEBHOOK_EVENTS"], defaultValue: "",
            summary: "The event types `webhook-url` gets, comma-separated; empty: all of them."
        ),
    ]
}
