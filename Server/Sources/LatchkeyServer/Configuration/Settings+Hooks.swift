import Foundation
import LatchkeyCore

extension Setting {
    /// Auth hooks: the operator's HTTP endpoints, as GoTrue's `GOTRUE_HOOK_*`.
    static let hooks: [any SettingDeclaration] = [
        hookSendEmailEnabled,
        hookSendEmailURI,
        hookSendEmailSecrets,
        hookSendSMSEnabled,
        hookSendSMSURI,
        hookSendSMSSecrets,
        hookCustomAccessTokenEnabled,
        hookCustomAccessTokenURI,
        hookCustomAccessTokenSecrets,
        hookBeforeUserCreatedEnabled,
        hookBeforeUserCreatedURI,
        hookBeforeUserCreatedSecrets,
        hookPasswordVerificationAttemptEnabled,
        hookPasswordVerificationAttemptURI,
        hookPasswordVerificationAttemptSecrets,
        hookMFAVerificationAttemptEnabled,
        hookMFAVerificationAttemptURI,
        hookMFAVerificationAttemptSecrets,
        hookTimeout,
        hookProtectClaims,
        webhookURL,
        webhookSecret,
        webhookEvents,
    ]
}

extension Setting {
    static let hookSendEmailEnabled = flag(
        "hook-send-email-enabled", ["GOTRUE_HOOK_SEND_EMAIL_ENABLED"], default: false,
        summary:
            "Send the emails Latchkey would send by SMTP through your endpoint instead (any mail API): it gets the user and `email_data` (code, link token, kind, redirect). Sent from the outbox, retried with back-off."
    )

    static let hookSendEmailURI = text(
        "hook-send-email-uri", ["GOTRUE_HOOK_SEND_EMAIL_URI"],
        summary: "The endpoint: `https://…`, or `http://` to `localhost`, `127.0.0.1`, `::1` or `host.docker.internal` (GoTrue's rule).")

    static let hookSendEmailSecrets = text(
        "hook-send-email-secrets", ["GOTRUE_HOOK_SEND_EMAIL_SECRETS"],
        summary:
            "Standard Webhooks secrets `v1,whsec_<base64>`, several joined by `|`; each request carries one signature per secret. At least one."
    )

    static let hookSendSMSEnabled = flag(
        "hook-send-sms-enabled", ["GOTRUE_HOOK_SEND_SMS_ENABLED"], default: false,
        summary:
            "Send SMS codes through your endpoint instead of Twilio (any SMS provider): it gets the user and `sms` (`otp`, `phone`).")

    static let hookSendSMSURI = text(
        "hook-send-sms-uri", ["GOTRUE_HOOK_SEND_SMS_URI"],
        summary: "The endpoint: `https://…`, or `http://` to `localhost`, `127.0.0.1`, `::1` or `host.docker.internal` (GoTrue's rule).")

    static let hookSendSMSSecrets = text(
        "hook-send-sms-secrets", ["GOTRUE_HOOK_SEND_SMS_SECRETS"],
        summary:
            "Standard Webhooks secrets `v1,whsec_<base64>`, several joined by `|`; each request carries one signature per secret. At least one."
    )

    static let hookCustomAccessTokenEnabled = flag(
        "hook-custom-access-token-enabled", ["GOTRUE_HOOK_CUSTOM_ACCESS_TOKEN_ENABLED"], default: false,
        summary:
            "Your endpoint adds to or changes each access token's claims before it is signed (`claims` in, `claims` out); a failing hook fails the sign-in."
    )

    static let hookCustomAccessTokenURI = text(
        "hook-custom-access-token-uri", ["GOTRUE_HOOK_CUSTOM_ACCESS_TOKEN_URI"],
        summary: "The endpoint: `https://…`, or `http://` to `localhost`, `127.0.0.1`, `::1` or `host.docker.internal` (GoTrue's rule).")

    static let hookCustomAccessTokenSecrets = text(
        "hook-custom-access-token-secrets", ["GOTRUE_HOOK_CUSTOM_ACCESS_TOKEN_SECRETS"],
        summary:
            "Standard Webhooks secrets `v1,whsec_<base64>`, several joined by `|`; each request carries one signature per secret. At least one."
    )

    static let hookBeforeUserCreatedEnabled = flag(
        "hook-before-user-created-enabled", ["GOTRUE_HOOK_BEFORE_USER_CREATED_ENABLED"], default: false,
        summary:
            "Your endpoint sees each new user before it is stored (sign-up, code or link, invitation, identity provider, anonymous) and may refuse it with `{\"error\": {\"http_code\": 403, \"message\": …}}`."
    )

    static let hookBeforeUserCreatedURI = text(
        "hook-before-user-created-uri", ["GOTRUE_HOOK_BEFORE_USER_CREATED_URI"],
        summary: "The endpoint: `https://…`, or `http://` to `localhost`, `127.0.0.1`, `::1` or `host.docker.internal` (GoTrue's rule).")

    static let hookBeforeUserCreatedSecrets = text(
        "hook-before-user-created-secrets", ["GOTRUE_HOOK_BEFORE_USER_CREATED_SECRETS"],
        summary:
            "Standard Webhooks secrets `v1,whsec_<base64>`, several joined by `|`; each request carries one signature per secret. At least one."
    )

    static let hookPasswordVerificationAttemptEnabled = flag(
        "hook-password-verification-attempt-enabled", ["GOTRUE_HOOK_PASSWORD_VERIFICATION_ATTEMPT_ENABLED"], default: false,
        summary:
            "Your endpoint sees every password check of a known user (`user_id`, `valid`) and may answer `{\"decision\": \"reject\", \"message\": …, \"should_logout_user\": true}`."
    )

    static let hookPasswordVerificationAttemptURI = text(
        "hook-password-verification-attempt-uri", ["GOTRUE_HOOK_PASSWORD_VERIFICATION_ATTEMPT_URI"],
        summary: "The endpoint: `https://…`, or `http://` to `localhost`, `127.0.0.1`, `::1` or `host.docker.internal` (GoTrue's rule).")

    static let hookPasswordVerificationAttemptSecrets = text(
        "hook-password-verification-attempt-secrets", ["GOTRUE_HOOK_PASSWORD_VERIFICATION_ATTEMPT_SECRETS"],
        summary:
            "Standard Webhooks secrets `v1,whsec_<base64>`, several joined by `|`; each request carries one signature per secret. At least one."
    )

    static let hookMFAVerificationAttemptEnabled = flag(
        "hook-mfa-verification-attempt-enabled", ["GOTRUE_HOOK_MFA_VERIFICATION_ATTEMPT_ENABLED"], default: false,
        summary:
            "Your endpoint sees every TOTP code check (`user_id`, `factor_id`, `valid`) and may answer `{\"decision\": \"reject\"}`: the verification is refused and the user's sessions end."
    )

    static let hookMFAVerificationAttemptURI = text(
        "hook-mfa-verification-attempt-uri", ["GOTRUE_HOOK_MFA_VERIFICATION_ATTEMPT_URI"],
        summary: "The endpoint: `https://…`, or `http://` to `localhost`, `127.0.0.1`, `::1` or `host.docker.internal` (GoTrue's rule).")

    static let hookMFAVerificationAttemptSecrets = text(
        "hook-mfa-verification-attempt-secrets", ["GOTRUE_HOOK_MFA_VERIFICATION_ATTEMPT_SECRETS"],
        summary:
            "Standard Webhooks secrets `v1,whsec_<base64>`, several joined by `|`; each request carries one signature per secret. At least one."
    )

    static let hookTimeout = seconds(
        "hook-timeout", ["LATCHKEY_HOOK_TIMEOUT"], default: 5, in: 1...60,
        summary: "Seconds a hook call may take, retries included (GoTrue's 5): past it the request fails with `hook_timeout`.")

    static let hookProtectClaims = flag(
        "hook-protect-claims", ["LATCHKEY_HOOK_PROTECT_CLAIMS"], default: true,
        summary:
            "The custom access token hook may add claims and change the user's own (`role`, `email`, `phone`, the metadata) but not `iss`, `sub`, `aud`, `iat`, `session_id`, `aal`, `amr`, `is_anonymous`, nor make `exp` later. `false`: any change GoTrue's schema allows."
    )

    static let webhookURL = text(
        "webhook-url", ["LATCHKEY_WEBHOOK_URL"],
        summary:
            "An endpoint that gets every event (`user.created`, `user.signed_in`, `user.email_changed`, `user.phone_changed`, `user.deleted`, `factor.added`, `factor.removed`) as a signed Standard Webhooks `POST`, queued with the change and retried with back-off. `https://`, or `http://` to this machine. More endpoints: `POST /admin/webhooks`, `latchkey webhooks add`."
    )

    static let webhookSecret = text(
        "webhook-secret", ["LATCHKEY_WEBHOOK_SECRET"],
        summary: "The Standard Webhooks secret (`v1,whsec_<base64>`) `webhook-url`'s deliveries are signed with; required with it.")

    static let webhookEvents = list(
        "webhook-events", ["LATCHKEY_WEBHOOK_EVENTS"], summary: "The event types `webhook-url` gets, comma-separated; empty: all of them.")
}

extension Setting {
    /// One hook's settings: whether it is on, its endpoint and its secrets.
    struct Hook {
        let enabled: Path<Bool>
        let uri: Path<String?>
        let secrets: Path<String?>
    }

    /// `name`'s settings (`GOTRUE_HOOK_<NAME>_*`).
    static func hook(_ name: HookName) -> Hook {
        switch name {
        case .sendEmail: Hook(enabled: \.hookSendEmailEnabled, uri: \.hookSendEmailURI, secrets: \.hookSendEmailSecrets)
        case .sendSMS: Hook(enabled: \.hookSendSMSEnabled, uri: \.hookSendSMSURI, secrets: \.hookSendSMSSecrets)
        case .customAccessToken:
            Hook(enabled: \.hookCustomAccessTokenEnabled, uri: \.hookCustomAccessTokenURI, secrets: \.hookCustomAccessTokenSecrets)
        case .beforeUserCreated:
            Hook(enabled: \.hookBeforeUserCreatedEnabled, uri: \.hookBeforeUserCreatedURI, secrets: \.hookBeforeUserCreatedSecrets)
        case .passwordVerificationAttempt:
            Hook(
                enabled: \.hookPasswordVerificationAttemptEnabled, uri: \.hookPasswordVerificationAttemptURI,
                secrets: \.hookPasswordVerificationAttemptSecrets)
        case .mfaVerificationAttempt:
            Hook(
                enabled: \.hookMFAVerificationAttemptEnabled, uri: \.hookMFAVerificationAttemptURI,
                secrets: \.hookMFAVerificationAttemptSecrets)
        }
    }
}
