import Foundation

extension Setting {
    /// The providers whose id tokens sign users in: GoTrue's `GOTRUE_EXTERNAL_<P>_*` for Apple,
    /// Google, Microsoft (Azure) and Keycloak, and Latchkey's issuer overrides.
    static let external: [any SettingDeclaration] =
        web3 + [
            externalAppleEnabled,
            externalAppleClientID,
            externalAppleSkipNonceCheck,
            externalAppleEmailOptional,
            externalGoogleEnabled,
            externalGoogleClientID,
            externalGoogleSkipNonceCheck,
            externalGoogleEmailOptional,
            externalAzureEnabled,
            externalAzureClientID,
            externalAzureSkipNonceCheck,
            externalAzureEmailOptional,
            externalAzureTrustEmailWithoutEDOV,
            externalAzureURL,
            externalKeycloakEnabled,
            externalKeycloakClientID,
            externalKeycloakSkipNonceCheck,
            externalKeycloakEmailOptional,
            externalKeycloakURL,
            externalAppleSecret,
            externalAppleRedirectURI,
            externalGoogleSecret,
            externalGoogleRedirectURI,
            externalAzureSecret,
            externalAzureRedirectURI,
            externalKeycloakSecret,
            externalKeycloakRedirectURI,
            externalAppleTeamID,
            externalAppleKeyID,
            externalApplePrivateKey,
            externalApplePrivateKeyFile,
            securityManualLinkingEnabled,
            externalCustomLinkByEmail,
            externalGithubEnabled,
            externalGithubClientID,
            externalGithubSecret,
            externalGithubRedirectURI,
            externalGithubURL,
            externalGithubEmailOptional,
            externalIOSBundleID,
            externalAppleIssuer,
            externalGoogleIssuer,
            externalOIDCCacheTTL,
            mailerAllowUnverifiedEmailSignIns,
        ]
}

extension Setting {
    /// GoTrue's wallet sign-in settings (docs/web3.md).
    static let web3: [any SettingDeclaration] = [
        externalWeb3SolanaEnabled,
        externalWeb3SolanaMaximumValidityDuration,
        externalWeb3EthereumEnabled,
        externalWeb3EthereumMaximumValidityDuration,
        rateLimitWeb3,
    ]
}

extension Setting {
    static let externalAppleEnabled = flag(
        "external-apple-enabled", ["LATCHKEY_EXTERNAL_APPLE_ENABLED", "GOTRUE_EXTERNAL_APPLE_ENABLED"], default: false,
        summary:
            "Sign in with Apple id tokens (`POST /token?grant_type=id_token`, `provider=apple`).")

    static let externalAppleClientID = list(
        "external-apple-client-id", ["LATCHKEY_EXTERNAL_APPLE_CLIENT_ID", "GOTRUE_EXTERNAL_APPLE_CLIENT_ID"],
        summary:
            "Apple client ids, separated by commas: every one is an accepted audience (`aud`) of an id token (the Services ID; `external-ios-bundle-id` adds the app's bundle id)."
    )

    static let externalAppleSkipNonceCheck = flag(
        "external-apple-skip-nonce-check", ["LATCHKEY_EXTERNAL_APPLE_SKIP_NONCE_CHECK", "GOTRUE_EXTERNAL_APPLE_SKIP_NONCE_CHECK"],
        default: false,
        summary:
            "Accept Apple id tokens without a nonce (for client libraries that cannot pass one).")

    static let externalAppleEmailOptional = flag(
        "external-apple-email-optional", ["LATCHKEY_EXTERNAL_APPLE_EMAIL_OPTIONAL", "GOTRUE_EXTERNAL_APPLE_EMAIL_OPTIONAL"], default: false,
        summary:
            "Sign in with Apple identities that carry no address (the user then has none).")

    static let externalGoogleEnabled = flag(
        "external-google-enabled", ["LATCHKEY_EXTERNAL_GOOGLE_ENABLED", "GOTRUE_EXTERNAL_GOOGLE_ENABLED"], default: false,
        summary:
            "Sign in with Google id tokens (`POST /token?grant_type=id_token`, `provider=google`).")

    static let externalGoogleClientID = list(
        "external-google-client-id", ["LATCHKEY_EXTERNAL_GOOGLE_CLIENT_ID", "GOTRUE_EXTERNAL_GOOGLE_CLIENT_ID"],
        summary:
            "Google client ids, separated by commas: every one is an accepted audience (`aud`) of an id token.")

    static let externalGoogleSkipNonceCheck = flag(
        "external-google-skip-nonce-check", ["LATCHKEY_EXTERNAL_GOOGLE_SKIP_NONCE_CHECK", "GOTRUE_EXTERNAL_GOOGLE_SKIP_NONCE_CHECK"],
        default: false,
        summary:
            "Accept Google id tokens without a nonce (for client libraries that cannot pass one).")

    static let externalGoogleEmailOptional = flag(
        "external-google-email-optional", ["LATCHKEY_EXTERNAL_GOOGLE_EMAIL_OPTIONAL", "GOTRUE_EXTERNAL_GOOGLE_EMAIL_OPTIONAL"],
        default: false,
        summary:
            "Sign in with Google identities that carry no address (the user then has none).")

    static let externalAzureEnabled = flag(
        "external-azure-enabled", ["LATCHKEY_EXTERNAL_AZURE_ENABLED", "GOTRUE_EXTERNAL_AZURE_ENABLED"], default: false,
        summary:
            "Sign in with Microsoft (Azure) id tokens (`POST /token?grant_type=id_token`, `provider=azure`).")

    static let externalAzureClientID = list(
        "external-azure-client-id", ["LATCHKEY_EXTERNAL_AZURE_CLIENT_ID", "GOTRUE_EXTERNAL_AZURE_CLIENT_ID"],
        summary:
            "Microsoft (Azure) client ids, separated by commas: every one is an accepted audience (`aud`) of an id token.")

    static let externalAzureSkipNonceCheck = flag(
        "external-azure-skip-nonce-check", ["LATCHKEY_EXTERNAL_AZURE_SKIP_NONCE_CHECK", "GOTRUE_EXTERNAL_AZURE_SKIP_NONCE_CHECK"],
        default: false,
        summary:
            "Accept Microsoft (Azure) id tokens without a nonce (for client libraries that cannot pass one).")

    static let externalAzureEmailOptional = flag(
        "external-azure-email-optional", ["LATCHKEY_EXTERNAL_AZURE_EMAIL_OPTIONAL", "GOTRUE_EXTERNAL_AZURE_EMAIL_OPTIONAL"], default: false,
        summary:
            "Sign in with Microsoft (Azure) identities that carry no address (the user then has none).")

    static let externalAzureTrustEmailWithoutEDOV = flag(
        "external-azure-trust-email-without-edov", ["LATCHKEY_EXTERNAL_AZURE_TRUST_EMAIL_WITHOUT_EDOV"], default: false,
        summary:
            "With every Entra tenant accepted (no `external-azure-url`), take a token's `email` as verified when it carries no `xms_edov` claim, as GoTrue does. Off: only `xms_edov: true` vouches for the address, because any tenant's administrator can set any `email` (the \"nOAuth\" takeover of a confirmed account by auto-linking). Add `xms_edov` as an optional claim in the app registration instead of turning this on. With one tenant configured, an absent `xms_edov` counts as verified either way."
    )

    static let externalAzureURL = text(
        "external-azure-url", ["LATCHKEY_EXTERNAL_AZURE_URL", "GOTRUE_EXTERNAL_AZURE_URL"],
        summary:
            "One tenant's issuer (`https://login.microsoftonline.com/TENANT/v2.0`) to accept only that tenant; unset, any tenant's v2.0 issuer."
    )

    static let externalKeycloakEnabled = flag(
        "external-keycloak-enabled", ["LATCHKEY_EXTERNAL_KEYCLOAK_ENABLED", "GOTRUE_EXTERNAL_KEYCLOAK_ENABLED"], default: false,
        summary:
            "Sign in with Keycloak id tokens (`POST /token?grant_type=id_token`, `provider=keycloak`).")

    static let externalKeycloakClientID = list(
        "external-keycloak-client-id", ["LATCHKEY_EXTERNAL_KEYCLOAK_CLIENT_ID", "GOTRUE_EXTERNAL_KEYCLOAK_CLIENT_ID"],
        summary:
            "Keycloak client ids, separated by commas: every one is an accepted audience (`aud`) of an id token.")

    static let externalKeycloakSkipNonceCheck = flag(
        "external-keycloak-skip-nonce-check", ["LATCHKEY_EXTERNAL_KEYCLOAK_SKIP_NONCE_CHECK", "GOTRUE_EXTERNAL_KEYCLOAK_SKIP_NONCE_CHECK"],
        default: false,
        summary:
            "Accept Keycloak id tokens without a nonce (for client libraries that cannot pass one).")

    static let externalKeycloakEmailOptional = flag(
        "external-keycloak-email-optional", ["LATCHKEY_EXTERNAL_KEYCLOAK_EMAIL_OPTIONAL", "GOTRUE_EXTERNAL_KEYCLOAK_EMAIL_OPTIONAL"],
        default: false,
        summary:
            "Sign in with Keycloak identities that carry no address (the user then has none).")

    static let externalKeycloakURL = text(
        "external-keycloak-url", ["LATCHKEY_EXTERNAL_KEYCLOAK_URL", "GOTRUE_EXTERNAL_KEYCLOAK_URL"],
        summary:
            "The Keycloak realm's issuer URL (`https://host/realms/NAME`); required when Keycloak is on. HTTPS, or HTTP on a loopback address only."
    )

    static let externalAppleSecret = text(
        "external-apple-secret", ["LATCHKEY_EXTERNAL_APPLE_SECRET", "GOTRUE_EXTERNAL_APPLE_SECRET"],
        summary:
            "Apple's client secret: with it, `GET /authorize?provider=apple` sends users to Apple and back (the redirect flow). For Apple, a client-secret JWT made elsewhere; or set `external-apple-team-id`, `external-apple-key-id` and `external-apple-private-key` and Latchkey makes and renews it."
    )

    static let externalAppleRedirectURI = text(
        "external-apple-redirect-uri", ["LATCHKEY_EXTERNAL_APPLE_REDIRECT_URI", "GOTRUE_EXTERNAL_APPLE_REDIRECT_URI"],
        shown: "<external-url>/callback",
        summary:
            "The callback URL registered with Apple: this server's `/callback`.")

    static let externalGoogleSecret = text(
        "external-google-secret", ["LATCHKEY_EXTERNAL_GOOGLE_SECRET", "GOTRUE_EXTERNAL_GOOGLE_SECRET"],
        summary:
            "Google's client secret: with it, `GET /authorize?provider=google` sends users to Google and back (the redirect flow).")

    static let externalGoogleRedirectURI = text(
        "external-google-redirect-uri", ["LATCHKEY_EXTERNAL_GOOGLE_REDIRECT_URI", "GOTRUE_EXTERNAL_GOOGLE_REDIRECT_URI"],
        shown: "<external-url>/callback",
        summary:
            "The callback URL registered with Google: this server's `/callback`.")

    static let externalAzureSecret = text(
        "external-azure-secret", ["LATCHKEY_EXTERNAL_AZURE_SECRET", "GOTRUE_EXTERNAL_AZURE_SECRET"],
        summary:
            "Microsoft (Azure)'s client secret: with it, `GET /authorize?provider=azure` sends users to Microsoft (Azure) and back (the redirect flow)."
    )

    static let externalAzureRedirectURI = text(
        "external-azure-redirect-uri", ["LATCHKEY_EXTERNAL_AZURE_REDIRECT_URI", "GOTRUE_EXTERNAL_AZURE_REDIRECT_URI"],
        shown: "<external-url>/callback",
        summary:
            "The callback URL registered with Microsoft (Azure): this server's `/callback`.")

    static let externalKeycloakSecret = text(
        "external-keycloak-secret", ["LATCHKEY_EXTERNAL_KEYCLOAK_SECRET", "GOTRUE_EXTERNAL_KEYCLOAK_SECRET"],
        summary:
            "Keycloak's client secret: with it, `GET /authorize?provider=keycloak` sends users to Keycloak and back (the redirect flow).")

    static let externalKeycloakRedirectURI = text(
        "external-keycloak-redirect-uri", ["LATCHKEY_EXTERNAL_KEYCLOAK_REDIRECT_URI", "GOTRUE_EXTERNAL_KEYCLOAK_REDIRECT_URI"],
        shown: "<external-url>/callback",
        summary:
            "The callback URL registered with Keycloak: this server's `/callback`.")

    static let externalAppleTeamID = text(
        "external-apple-team-id", ["LATCHKEY_EXTERNAL_APPLE_TEAM_ID"],
        summary:
            "Your Apple Developer team id: the `iss` of the client secret Latchkey makes.")

    static let externalAppleKeyID = text(
        "external-apple-key-id", ["LATCHKEY_EXTERNAL_APPLE_KEY_ID"],
        summary:
            "The id of the Sign in with Apple key (`.p8`): the client secret's `kid`.")

    static let externalApplePrivateKey = text(
        "external-apple-private-key", ["LATCHKEY_EXTERNAL_APPLE_PRIVATE_KEY"],
        summary:
            "The Sign in with Apple key, the `.p8` file's PEM text (or `external-apple-private-key-file`). Latchkey signs a 30-day client secret with it and makes a new one a day before it expires."
    )

    static let externalApplePrivateKeyFile = text(
        "external-apple-private-key-file", ["LATCHKEY_EXTERNAL_APPLE_PRIVATE_KEY_FILE"],
        summary:
            "A file holding the Sign in with Apple key (`.p8`), instead of `external-apple-private-key`.")

    static let securityManualLinkingEnabled = flag(
        "security-manual-linking-enabled", ["LATCHKEY_SECURITY_MANUAL_LINKING_ENABLED", "GOTRUE_SECURITY_MANUAL_LINKING_ENABLED"],
        default: false,
        summary:
            "Signed-in users link providers themselves (`GET /user/identities/authorize`, `link_identity` on the id-token grant) and unlink identities (`DELETE /user/identities/{id}`, never the last); a user with a verified factor needs an `aal2` session for each, and the owner is emailed. Off: all answer 404 `manual_linking_disabled`."
    )

    static let externalCustomLinkByEmail = flag(
        "external-custom-link-by-email", ["LATCHKEY_EXTERNAL_CUSTOM_LINK_BY_EMAIL"], default: false,
        summary:
            "A custom OpenID provider's (`custom:…`) user whose address the provider vouches for joins the confirmed account of that address, as built-in providers' users do. Off: the user is made without the address (its owner can link the provider from their account), so an identity provider an operator adds cannot hand out the accounts of the addresses it vouches for."
    )

    static let externalGithubEnabled = flag(
        "external-github-enabled", ["LATCHKEY_EXTERNAL_GITHUB_ENABLED", "GOTRUE_EXTERNAL_GITHUB_ENABLED"], default: false,
        summary:
            "Sign in with GitHub (the redirect flow: `GET /authorize?provider=github`).")

    static let externalGithubClientID = text(
        "external-github-client-id", ["LATCHKEY_EXTERNAL_GITHUB_CLIENT_ID", "GOTRUE_EXTERNAL_GITHUB_CLIENT_ID"],
        summary:
            "The GitHub OAuth app's client id.")

    static let externalGithubSecret = text(
        "external-github-secret", ["LATCHKEY_EXTERNAL_GITHUB_SECRET", "GOTRUE_EXTERNAL_GITHUB_SECRET"],
        summary:
            "The GitHub OAuth app's client secret.")

    static let externalGithubRedirectURI = text(
        "external-github-redirect-uri", ["LATCHKEY_EXTERNAL_GITHUB_REDIRECT_URI", "GOTRUE_EXTERNAL_GITHUB_REDIRECT_URI"],
        shown: "<external-url>/callback",
        summary:
            "The callback URL registered with the GitHub app: this server's `/callback`.")

    static let externalGithubURL = text(
        "external-github-url", ["LATCHKEY_EXTERNAL_GITHUB_URL", "GOTRUE_EXTERNAL_GITHUB_URL"], shown: "https://github.com",
        summary:
            "GitHub Enterprise Server's URL (the API is its `/api/v3`); tests point it at a stand-in. HTTPS, or HTTP on a loopback address only."
    )

    static let externalGithubEmailOptional = flag(
        "external-github-email-optional", ["LATCHKEY_EXTERNAL_GITHUB_EMAIL_OPTIONAL", "GOTRUE_EXTERNAL_GITHUB_EMAIL_OPTIONAL"],
        default: false,
        summary:
            "Sign in GitHub users whose primary address is unverified or hidden, without an address.")

    static let externalIOSBundleID = text(
        "external-ios-bundle-id", ["LATCHKEY_EXTERNAL_IOS_BUNDLE_ID", "GOTRUE_EXTERNAL_IOS_BUNDLE_ID"],
        summary: "The iOS app's bundle id: a further audience Apple's id tokens may carry (Sign in with Apple on the device).")

    static let externalAppleIssuer = text(
        "external-apple-issuer", ["LATCHKEY_EXTERNAL_APPLE_ISSUER"], shown: "https://appleid.apple.com, https://account.apple.com",
        summary:
            "The issuer Apple's id tokens must name, in place of Apple's own: for tests and self-hosted stand-ins. HTTPS, or HTTP on a loopback address only."
    )

    static let externalGoogleIssuer = text(
        "external-google-issuer", ["LATCHKEY_EXTERNAL_GOOGLE_ISSUER"], shown: "https://accounts.google.com",
        summary:
            "The issuer Google's id tokens must name, in place of Google's own: for tests and self-hosted stand-ins. HTTPS, or HTTP on a loopback address only."
    )

    static let externalOIDCCacheTTL = seconds(
        "external-oidc-cache-ttl", ["LATCHKEY_EXTERNAL_OIDC_CACHE_TTL", "GOTRUE_EXTERNAL_OIDC_PROVIDER_CACHE_TTL"], default: 3600,
        summary:
            "Seconds (or a duration like `1h`) an issuer's signing keys are used before they are fetched again; a token signed by a key not yet seen fetches them sooner, at most once per 30 seconds."
    )

    static let mailerAllowUnverifiedEmailSignIns = flag(
        "mailer-allow-unverified-email-sign-ins",
        ["LATCHKEY_MAILER_ALLOW_UNVERIFIED_EMAIL_SIGN_INS", "GOTRUE_MAILER_ALLOW_UNVERIFIED_EMAIL_SIGN_INS"], default: false,
        summary:
            "Sign in with a provider's identity whose address the provider does not vouch for (the address stays unconfirmed, and is never linked to an existing account). Off: such a sign-in answers 422 `provider_email_needs_verification` and stores nothing."
    )

    static let externalWeb3SolanaEnabled = flag(
        "external-web3-solana-enabled", ["GOTRUE_EXTERNAL_WEB3_SOLANA_ENABLED"], default: false,
        summary:
            "Sign in with Solana (`POST /token?grant_type=web3`, `chain: solana`): a Solana wallet's Ed25519 signature of a Sign in with Solana message (docs/web3.md). Off: `422 web3_provider_disabled`, as GoTrue."
    )

    static let externalWeb3SolanaMaximumValidityDuration = seconds(
        "external-web3-solana-maximum-validity-duration", ["GOTRUE_EXTERNAL_WEB3_SOLANA_MAXIMUM_VALIDITY_DURATION"], default: 600,
        summary: "How far a Solana sign-in message's `Issued At` may be from now, either way, in seconds.")

    static let externalWeb3EthereumEnabled = flag(
        "external-web3-ethereum-enabled", ["GOTRUE_EXTERNAL_WEB3_ETHEREUM_ENABLED"], default: false,
        summary:
            "Sign in with Ethereum (`POST /token?grant_type=web3`, `chain: ethereum`): an EIP-4361 message signed with `personal_sign` (docs/web3.md). Off: `422 web3_provider_disabled`, as GoTrue."
    )

    static let externalWeb3EthereumMaximumValidityDuration = seconds(
        "external-web3-ethereum-maximum-validity-duration", ["GOTRUE_EXTERNAL_WEB3_ETHEREUM_MAXIMUM_VALIDITY_DURATION"], default: 600,
        summary: "How far an Ethereum sign-in message's `Issued At` may be from now, either way, in seconds.")

    static let rateLimitWeb3 = count(
        "rate-limit-web3", ["LATCHKEY_RATE_LIMIT_WEB3", "GOTRUE_RATE_LIMIT_WEB3"], default: 30,
        summary: "Wallet sign-ins (`grant_type=web3`) per client IP per 5 minutes, counted before anything else is read, as GoTrue.")
}

extension Setting {
    /// One id-token provider's settings (`GOTRUE_EXTERNAL_<P>_*`).
    struct IDTokenProvider {
        let enabled: Path<Bool>
        let clientID: Path<[String]>
        let skipNonceCheck: Path<Bool>
        let emailOptional: Path<Bool>
        let secret: Path<String?>
        let redirectURI: Path<String?>
    }

    /// The providers whose id tokens sign users in, by name, in the order they are read.
    static var idTokenProviders: [(name: String, keys: IDTokenProvider)] {
        [
            (
                "apple",
                IDTokenProvider(
                    enabled: \.externalAppleEnabled, clientID: \.externalAppleClientID, skipNonceCheck: \.externalAppleSkipNonceCheck,
                    emailOptional: \.externalAppleEmailOptional, secret: \.externalAppleSecret, redirectURI: \.externalAppleRedirectURI)
            ),
            (
                "google",
                IDTokenProvider(
                    enabled: \.externalGoogleEnabled, clientID: \.externalGoogleClientID, skipNonceCheck: \.externalGoogleSkipNonceCheck,
                    emailOptional: \.externalGoogleEmailOptional, secret: \.externalGoogleSecret, redirectURI: \.externalGoogleRedirectURI)
            ),
            (
                "azure",
                IDTokenProvider(
                    enabled: \.externalAzureEnabled, clientID: \.externalAzureClientID, skipNonceCheck: \.externalAzureSkipNonceCheck,
                    emailOptional: \.externalAzureEmailOptional, secret: \.externalAzureSecret, redirectURI: \.externalAzureRedirectURI)
            ),
            (
                "keycloak",
                IDTokenProvider(
                    enabled: \.externalKeycloakEnabled, clientID: \.externalKeycloakClientID,
                    skipNonceCheck: \.externalKeycloakSkipNonceCheck, emailOptional: \.externalKeycloakEmailOptional,
                    secret: \.externalKeycloakSecret, redirectURI: \.externalKeycloakRedirectURI)
            ),
        ]
    }
}
