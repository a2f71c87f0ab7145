import Foundation

extension Setting {
    /// Passkeys: GoTrue's `GOTRUE_PASSKEY_*` and `GOTRUE_WEBAUTHN_*`, and Latchkey's
    /// user-verification choice.
    static let passkeys: [any SettingDeclaration] = [
        passkeyEnabled,
        passkeyMaxPerUser,
        passkeyUserVerification,
        webauthnRPID,
        webauthnRPDisplayName,
        webauthnRPOrigins,
        webauthnChallengeExpiry,
        appleAppIds,
        appleAppLinkPaths,
        rateLimitPasskey,
    ]
}

extension Setting {
    static let passkeyEnabled = flag(
        "passkey-enabled", ["LATCHKEY_PASSKEY_ENABLED", "GOTRUE_PASSKEY_ENABLED"], default: false,
        summary:
            "Passkeys: `/passkeys/*` registers them for signed-in users and signs in with them, no username needed (404 `passkey_disabled` when off)."
    )

    static let passkeyMaxPerUser = count(
        "passkey-max-per-user", ["LATCHKEY_PASSKEY_MAX_PASSKEYS_PER_USER", "GOTRUE_PASSKEY_MAX_PASSKEYS_PER_USER"], default: 10,
        summary: "Passkeys one user may register (422 `too_many_passkeys` beyond).")

    static let passkeyUserVerification = text(
        "passkey-user-verification", ["LATCHKEY_PASSKEY_USER_VERIFICATION"], default: "required",
        summary:
            "`required`: a passkey counts only with the user verified by the device (Face ID, Touch ID, a PIN), as the options ask. `preferred` also accepts mere presence (a touch), GoTrue's behaviour."
    )

    static let webauthnRPID = text(
        "webauthn-rp-id", ["LATCHKEY_WEBAUTHN_RP_ID", "GOTRUE_WEBAUTHN_RP_ID"], shown: "<external-url's host>",
        summary:
            "The relying party id: the domain passkeys are bound to (`example.com` serves `app.example.com` too; for an iOS app, the domain of its `webcredentials:` associated domain). A loopback address becomes `localhost`, as browsers refuse IP addresses."
    )

    static let webauthnRPDisplayName = text(
        "webauthn-rp-display-name", ["LATCHKEY_WEBAUTHN_RP_DISPLAY_NAME", "GOTRUE_WEBAUTHN_RP_DISPLAY_NAME"], shown: "<app-name>",
        summary: "The name the device shows when it offers or saves a passkey.")

    static let webauthnRPOrigins = list(
        "webauthn-rp-origins", ["LATCHKEY_WEBAUTHN_RP_ORIGINS", "GOTRUE_WEBAUTHN_RP_ORIGINS"], shown: "<external-url's origin>",
        summary:
            "Origins a ceremony may come from, separated by commas: `https://` web origins on the relying party's domain (`http://localhost:PORT` for development), and Android apps as `android:apk-key-hash:…`. iOS apps sign with their associated domain's `https://` origin. Checked at start."
    )

    static let webauthnChallengeExpiry = seconds(
        "webauthn-challenge-expiry", ["LATCHKEY_WEBAUTHN_CHALLENGE_EXPIRY_DURATION", "GOTRUE_WEBAUTHN_CHALLENGE_EXPIRY_DURATION"],
        default: 300, summary: "Seconds (or a Go duration such as `5m`) a passkey challenge stays good, once.")

    static let appleAppIds = list(
        "apple-app-ids", ["LATCHKEY_APPLE_APP_IDS"],
        summary:
            "Apple apps (`TEAMID.bundle.identifier`, commas) named by `/.well-known/apple-app-site-association` as `webcredentials`, so they can use this domain's passkeys (it must be the relying party's domain, or proxied there). Empty: that file answers 404."
    )

    static let appleAppLinkPaths = list(
        "apple-app-link-paths", ["LATCHKEY_APPLE_APP_LINK_PATHS"],
        summary:
            "Paths of this server's URLs that open those apps as universal links (`/auth/callback`, `/auth/*`, commas), served as `applinks`. Empty: no `applinks`."
    )

    static let rateLimitPasskey = count(
        "rate-limit-passkey", ["LATCHKEY_RATE_LIMIT_PASSKEY", "GOTRUE_RATE_LIMIT_PASSKEY"], default: 30,
        summary: "Passkey sign-in challenges (`POST /passkeys/authentication/options`) per client IP per 5 minutes.")
}
