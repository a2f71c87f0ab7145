import Foundation

extension Setting {
    /// GoTrue's captcha (`GOTRUE_SECURITY_CAPTCHA_*`), and what the hosted pages need besides.
    static let captcha: [Setting] = [
        .init(
            key: "captcha-enabled", environment: ["LATCHKEY_CAPTCHA_ENABLED", "GOTRUE_SECURITY_CAPTCHA_ENABLED"], defaultValue: "false",
            summary:
                "Check a captcha token (`gotrue_meta_security.captcha_token`, supabase-js's `options.captchaToken`) with the provider before `/signup` (anonymous sign-ins too), `/token?grant_type=password`, `/otp`, `/magiclink`, `/recover`, `/resend` and `/passkeys/authentication/options`, and on the hosted pages' forms. Operator tokens pass without one. Missing or refused: `400 captcha_failed`; the provider unreachable: `500 unexpected_failure`, as GoTrue."
        ),
        .init(
            key: "captcha-provider", environment: ["LATCHKEY_CAPTCHA_PROVIDER", "GOTRUE_SECURITY_CAPTCHA_PROVIDER"],
            defaultValue: "hcaptcha", summary: "`hcaptcha` or `turnstile` (Cloudflare)."),
        .init(
            key: "captcha-secret", environment: ["LATCHKEY_CAPTCHA_SECRET", "GOTRUE_SECURITY_CAPTCHA_SECRET"], defaultValue: "",
            summary: "The provider's secret for this site; required when captcha is on (the server refuses to start without it)."),
        .init(
            key: "captcha-timeout", environment: ["LATCHKEY_CAPTCHA_TIMEOUT", "GOTRUE_SECURITY_CAPTCHA_TIMEOUT"], defaultValue: "10s",
            summary: "How long a verification may take; past it the request fails with `500 unexpected_failure`."),
        .init(
            key: "captcha-site-key", environment: ["LATCHKEY_CAPTCHA_SITE_KEY"], defaultValue: "",
            summary:
                "The provider's site key, with which the hosted pages draw the widget. GoTrue has no pages and no such setting: with captcha on and no site key, the pages' forms are refused (`captcha_failed`) and the start-up log says so."
        ),
        .init(
            key: "captcha-verify-url", environment: ["LATCHKEY_CAPTCHA_VERIFY_URL"], defaultValue: "the provider's",
            summary:
                "Where tokens are verified: `https://hcaptcha.com/siteverify` or `https://challenges.cloudflare.com/turnstile/v0/siteverify`. For tests against a stand-in (HTTPS, or HTTP on a loopback address)."
        ),
    ]
}
