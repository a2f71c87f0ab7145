import Foundation

extension Setting {
    /// GoTrue's captcha (`GOTRUE_SECURITY_CAPTCHA_*`), and what the hosted pages need besides.
    static let captcha: [any SettingDeclaration] = [
        captchaEnabled,
        captchaProvider,
        captchaSecret,
        captchaTimeout,
        captchaSiteKey,
        captchaVerifyURL,
    ]
}

extension Setting {
    static let captchaEnabled = flag(
        "captcha-enabled", ["LATCHKEY_CAPTCHA_ENABLED", "GOTRUE_SECURITY_CAPTCHA_ENABLED"], default: false,
        summary:
            "Check a captcha token (`gotrue_meta_security.captcha_token`, supabase-js's `options.captchaToken`) with the provider before `/signup` (anonymous sign-ins too), `/token?grant_type=password`, `/otp`, `/magiclink`, `/recover`, `/resend` and `/passkeys/authentication/options`, and on the hosted pages' forms. Operator tokens pass without one. Missing or refused: `400 captcha_failed`; the provider unreachable: `500 unexpected_failure`, as GoTrue."
    )

    static let captchaProvider = text(
        "captcha-provider", ["LATCHKEY_CAPTCHA_PROVIDER", "GOTRUE_SECURITY_CAPTCHA_PROVIDER"], default: "hcaptcha",
        summary: "`hcaptcha` or `turnstile` (Cloudflare).")

    static let captchaSecret = text(
        "captcha-secret", ["LATCHKEY_CAPTCHA_SECRET", "GOTRUE_SECURITY_CAPTCHA_SECRET"],
        summary: "The provider's secret for this site; required when captcha is on (the server refuses to start without it).")

    static let captchaTimeout = seconds(
        "captcha-timeout", ["LATCHKEY_CAPTCHA_TIMEOUT", "GOTRUE_SECURITY_CAPTCHA_TIMEOUT"], default: 10,
        summary: "How long a verification may take; past it the request fails with `500 unexpected_failure`.")

    static let captchaSiteKey = text(
        "captcha-site-key", ["LATCHKEY_CAPTCHA_SITE_KEY"],
        summary:
            "The provider's site key, with which the hosted pages draw the widget. GoTrue has no pages and no such setting: with captcha on and no site key, the pages' forms are refused (`captcha_failed`) and the start-up log says so."
    )

    static let captchaVerifyURL = text(
        "captcha-verify-url", ["LATCHKEY_CAPTCHA_VERIFY_URL"], shown: "the provider's",
        summary:
            "Where tokens are verified: `https://hcaptcha.com/siteverify` or `https://challenges.cloudflare.com/turnstile/v0/siteverify`. For tests against a stand-in (HTTPS, or HTTP on a loopback address)."
    )
}
