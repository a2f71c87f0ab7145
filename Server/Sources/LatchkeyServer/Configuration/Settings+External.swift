import Foundation

extension Setting {
    /// The providers whose id tokens sign users in: GoTrue's `GOTRUE_EXTERNAL_<P>_*` for Apple,
    /// Google, Microsoft (Azure) and Keycloak, and Latchkey's issuer overrides.
    static let external: [Setting] =
        web3 + [
            .init(
                key: "external-apple-enabled", environment: ["LATCHKEY_EXTERNAL_APPLE_ENABLED", "GOTRUE_EXTERNAL_APPLE_ENABLED"],
                defaultValue: "false",
                summary:
                    "Sign in with Apple id tokens (`POST /token?grant_type=id_token`, `provider=apple`)."
            ),
            .init(
                key: "external-apple-client-id", environment: ["LATCHKEY_EXTERNAL_APPLE_CLIENT_ID", "GOTRUE_EXTERNAL_APPLE_CLIENT_ID"],
                defaultValue: "",
                summary:
                    "Apple client ids, separated by commas: every one is an accepted audience (`aud`) of an id token (the Services ID; `external-ios-bundle-id` adds the app's bundle id)."
            ),
            .init(
                key: "external-apple-skip-nonce-check",
                environment: ["LATCHKEY_EXTERNAL_APPLE_SKIP_NONCE_CHECK", "GOTRUE_EXTERNAL_APPLE_SKIP_NONCE_CHECK"], defaultValue: "false",
                summary:
                    "Accept Apple id tokens without a nonce (for client libraries that cannot pass one)."
            ),
            .init(
                key: "external-apple-email-optional",
                environment: ["LATCHKEY_EXTERNAL_APPLE_EMAIL_OPTIONAL", "GOTRUE_EXTERNAL_APPLE_EMAIL_OPTIONAL"], defaultValue: "false",
                summary:
                    "Sign in with Apple identities that carry no address (the user then has none)."
            ),
            .init(
                key: "external-google-enabled", environment: ["LATCHKEY_EXTERNAL_GOOGLE_ENABLED", "GOTRUE_EXTERNAL_GOOGLE_ENABLED"],
                defaultValue: "false",
                summary:
                    "Sign in with Google id tokens (`POST /token?grant_type=id_token`, `provider=google`)."
            ),
            .init(
                key: "external-google-client-id", environment: ["LATCHKEY_EXTERNAL_GOOGLE_CLIENT_ID", "GOTRUE_EXTERNAL_GOOGLE_CLIENT_ID"],
                defaultValue: "",
                summary:
                    "Google client ids, separated by commas: every one is an accepted audience (`aud`) of an id token."
            ),
            .init(
                key: "external-google-skip-nonce-check",
                environment: ["LATCHKEY_EXTERNAL_GOOGLE_SKIP_NONCE_CHECK", "GOTRUE_EXTERNAL_GOOGLE_SKIP_NONCE_CHECK"],
                defaultValue: "false",
                summary:
                    "Accept Google id tokens without a nonce (for client libraries that cannot pass one)."
            ),
            .init(
                key: "external-google-email-optional",
                environment: ["LATCHKEY_EXTERNAL_GOOGLE_EMAIL_OPTIONAL", "GOTRUE_EXTERNAL_GOOGLE_EMAIL_OPTIONAL"], defaultValue: "false",
                summary:
                    "Sign in with Google identities that carry no address (the user then has none)."
            ),
            .init(
                key: "external-azure-enabled", environment: ["LATCHKEY_EXTERNAL_AZURE_ENABLED", "GOTRUE_EXTERNAL_AZURE_ENABLED"],
                defaultValue: "false",
                summary:
                    "Sign in with Microsoft (Azure) id tokens (`POST /token?grant_type=id_token`, `provider=azure`)."
            ),
            .init(
                key: "external-azure-client-id", environment: ["LATCHKEY_EXTERNAL_AZURE_CLIENT_ID", "GOTRUE_EXTERNAL_AZURE_CLIENT_ID"],
                defaultValue: "",
                summary:
                    "Microsoft (Azure) client ids, separated by commas: every one is an accepted audience (`aud`) of an id token."
            ),
            .init(
                key: "external-azure-skip-nonce-check",
                environment: ["LATCHKEY_EXTERNAL_AZURE_SKIP_NONCE_CHECK", "GOTRUE_EXTERNAL_AZURE_SKIP_NONCE_CHECK"], defaultValue: "false",
                summary:
                    "Accept Microsoft (Azure) id tokens without a nonce (for client libraries that cannot pass one)."
            ),
            .init(
                key: "external-azure-email-optional",
                environment: ["LATCHKEY_EXTERNAL_AZURE_EMAIL_OPTIONAL", "GOTRUE_EXTERNAL_AZURE_EMAIL_OPTIONAL"], defaultValue: "false",
                summary:
                    "Sign in with Microsoft (Azure) identities that carry no address (the user then has none)."
            ),
            .init(
                key: "external-azure-trust-email-without-edov", environment: ["LATCHKEY_EXTERNAL_AZURE_TRUST_EMAIL_WITHOUT_EDOV"],
                defaultValue: "false",
                summary:
                    "With every Entra tenant accepted (no `external-azure-url`), take a token's `email` as verified when it carries no `xms_edov` claim, as GoTrue does. Off: only `xms_edov: true` vouches for the address, because any tenant's administrator can set any `email` (the \"nOAuth\" takeover of a confirmed account by auto-linking). Add `xms_edov` as an optional claim in the app registration instead of turning this on. With one tenant configured, an absent `xms_edov` counts as verified either way."
            ),
            .init(
                key: "external-azure-url", environment: ["LATCHKEY_EXTERNAL_AZURE_URL", "GOTRUE_EXTERNAL_AZURE_URL"], defaultValue: "",
                summary:
                    "One tenant's issuer (`https://login.microsoftonline.com/TENANT/v2.0`) to accept only that tenant; unset, any tenant's v2.0 issuer."
            ),
            .init(
                key: "external-keycloak-enabled", environment: ["LATCHKEY_EXTERNAL_KEYCLOAK_ENABLED", "GOTRUE_EXTERNAL_KEYCLOAK_ENABLED"],
                defaultValue: "false",
                summary:
                    "Sign in with Keycloak id tokens (`POST /token?grant_type=id_token`, `provider=keycloak`)."
            ),
            .init(
                key: "external-keycloak-client-id",
                environment: ["LATCHKEY_EXTERNAL_KEYCLOAK_CLIENT_ID", "GOTRUE_EXTERNAL_KEYCLOAK_CLIENT_ID"], defaultValue: "",
                summary:
                    "Keycloak client ids, separated by commas: every one is an accepted audience (`aud`) of an id token."
            ),
            .init(
                key: "external-keycloak-skip-nonce-check",
                environment: ["LATCHKEY_EXTERNAL_KEYCLOAK_SKIP_NONCE_CHECK", "GOTRUE_EXTERNAL_KEYCLOAK_SKIP_NONCE_CHECK"],
                defaultValue: "false",
                summary:
                    "Accept Keycloak id tokens without a nonce (for client libraries that cannot pass one)."
            ),
            .init(
                key: "external-keycloak-email-optional",
                environment: ["LATCHKEY_EXTERNAL_KEYCLOAK_EMAIL_OPTIONAL", "GOTRUE_EXTERNAL_KEYCLOAK_EMAIL_OPTIONAL"],
                defaultValue: "false",
                summary:
                    "Sign in with Keycloak identities that carry no address (the user then has none)."
            ),
            .init(
                key: "external-keycloak-url", environment: ["LATCHKEY_EXTERNAL_KEYCLOAK_URL", "GOTRUE_EXTERNAL_KEYCLOAK_URL"],
                defaultValue: "",
                summary:
                    "The Keycloak realm's issuer URL (`https://host/realms/NAME`); required when Keycloak is on. HTTPS, or HTTP on a loopback address only."
            ),
            .init(
                key: "external-apple-secret", environment: ["LATCHKEY_EXTERNAL_APPLE_SECRET", "GOTRUE_EXTERNAL_APPLE_SECRET"],
                defaultValue: "",
                summary:
                    "Apple's client secret: with it, `GET /authorize?provider=apple` sends users to Apple and back (the redirect flow). For Apple, a client-secret JWT made elsewhere; or set `external-apple-team-id`, `external-apple-key-id` and `external-apple-private-key` and Latchkey makes and renews it."
            ),
            .init(
                key: "external-apple-redirect-uri",
                environment: ["LATCHKEY_EXTERNAL_APPLE_REDIRECT_URI", "GOTRUE_EXTERNAL_APPLE_REDIRECT_URI"],
                defaultValue: "<external-url>/callback",
                summary:
                    "The callback URL registered with Apple: this server's `/callback`."
            ),
            .init(
                key: "external-google-secret", environment: ["LATCHKEY_EXTERNAL_GOOGLE_SECRET", "GOTRUE_EXTERNAL_GOOGLE_SECRET"],
                defaultValue: "",
                summary:
                    "Google's client secret: with it, `GET /authorize?provider=google` sends users to Google and back (the redirect flow)."
            ),
            .init(
                key: "external-google-redirect-uri",
                environment: ["LATCHKEY_EXTERNAL_GOOGLE_REDIRECT_URI", "GOTRUE_EXTERNAL_GOOGLE_REDIRECT_URI"],
                defaultValue: "<external-url>/callback",
                summary:
                    "The callback URL registered with Google: this server's `/callback`."
            ),
            .init(
                key: "external-azure-secret", environment: ["LATCHKEY_EXTERNAL_AZURE_SECRET", "GOTRUE_EXTERNAL_AZURE_SECRET"],
                defaultValue: "",
                summary:
                    "Microsoft (Azure)'s client secret: with it, `GET /authorize?provider=azure` sends users to Microsoft (Azure) and back (the redirect flow)."
            ),
            .init(
                key: "external-azure-redirect-uri",
                environment: ["LATCHKEY_EXTERNAL_AZURE_REDIRECT_URI", "GOTRUE_EXTERNAL_AZURE_REDIRECT_URI"],
                defaultValue: "<external-url>/callback",
                summary:
                    "The callback URL registered with Microsoft (Azure): this server's `/callback`."
            ),
            .init(
                key: "external-keycloak-secret", environment: ["LATCHKEY_EXTERNAL_KEYCLOAK_SECRET", "GOTRUE_EXTERNAL_KEYCLOAK_SECRET"],
                defaultValue: "",
                summary:
                    "Keycloak's client secret: with it, `GET /authorize?provider=keycloak` sends users to Keycloak and back (the redirect flow)."
            ),
            .init(
                key: "external-keycloak-redirect-uri",
                environment: ["LATCHKEY_EXTERNAL_KEYCLOAK_REDIRECT_URI", "GOTRUE_EXTERNAL_KEYCLOAK_REDIRECT_URI"],
                defaultValue: "<external-url>/callback",
                summary:
                    "The callback URL registered with Keycloak: this server's `/callback`."
            ),
            .init(
                key: "external-apple-team-id", environment: ["LATCHKEY_EXTERNAL_APPLE_TEAM_ID"], defaultValue: "",
                summary:
                    "Your Apple Developer team id: the `iss` of the client secret Latchkey makes."
            ),
            .init(
                key: "external-apple-key-id", environment: ["LATCHKEY_EXTERNAL_APPLE_KEY_ID"], defaultValue: "",
                summary:
                    "The id of the Sign in with Apple key (`.p8`): the client secret's `kid`."
            ),
            .init(
                key: "external-apple-private-key", environment: ["LATCHKEY_EXTERNAL_APPLE_PRIVATE_KEY"], defaultValue: "",
                summary:
                    "The Sign in with Apple key, the `.p8` file's PEM text (or `external-apple-private-key-file`). Latchkey signs a 30-day client secret with it and makes a new one a day before it expires."
            ),
            .init(
                key: "external-apple-private-key-file", environment: ["LATCHKEY_EXTERNAL_APPLE_PRIVATE_KEY_FILE"], defaultValue: "",
                summary:
                    "A file holding the Sign in with Apple key (`.p8`), instead of `external-apple-private-key`."
            ),
            .init(
                key: "security-manual-linking-enabled",
                environment: ["LATCHKEY_SECURITY_MANUAL_LINKING_ENABLED", "GOTRUE_SECURITY_MANUAL_LINKING_ENABLED"], defaultValue: "false",
                summary:
                    "Signed-in users link providers themselves (`GET /user/identities/authorize`, `link_identity` on the id-token grant) and unlink identities (`DELETE /user/identities/{id}`, never the last); a user with a verified factor needs an `aal2` session for each, and the owner is emailed. Off: all answer 404 `manual_linking_disabled`."
            ),
            .init(
                key: "external-custom-link-by-email", environment: ["LATCHKEY_EXTERNAL_CUSTOM_LINK_BY_EMAIL"], defaultValue: "false",
                summary:
                    "A custom OpenID provider's (`custom:…`) user whose address the provider vouches for joins the confirmed account of that address, as built-in providers' users do. Off: the user is made without the address (its owner can link the provider from their account), so an identity provider an operator adds cannot hand out the accounts of the addresses it vouches for."
            ),
            .init(
                key: "external-github-enabled", environment: ["LATCHKEY_EXTERNAL_GITHUB_ENABLED", "GOTRUE_EXTERNAL_GITHUB_ENABLED"],
                defaultValue: "false",
                summary:
                    "Sign in with GitHub (the redirect flow: `GET /authorize?provider=github`)."
            ),
            .init(
                key: "external-github-client-id", environment: ["LATCHKEY_EXTERNAL_GITHUB_CLIENT_ID", "GOTRUE_EXTERNAL_GITHUB_CLIENT_ID"],
                defaultValue: "",
                summary:
                    "The GitHub OAuth app's client id."
            ),
            .init(
                key: "external-github-secret", environment: ["LATCHKEY_EXTERNAL_GITHUB_SECRET", "GOTRUE_EXTERNAL_GITHUB_SECRET"],
                defaultValue: "",
                summary:
                    "The GitHub OAuth app's client secret."
            ),
            .init(
                key: "external-github-redirect-uri",
                environment: ["LATCHKEY_EXTERNAL_GITHUB_REDIRECT_URI", "GOTRUE_EXTERNAL_GITHUB_REDIRECT_URI"],
                defaultValue: "<external-url>/callback",
                summary:
                    "The callback URL registered with the GitHub app: this server's `/callback`."
            ),
            .init(
                key: "external-github-url", environment: ["LATCHKEY_EXTERNAL_GITHUB_URL", "GOTRUE_EXTERNAL_GITHUB_URL"],
                defaultValue: "https://github.com",
                summary:
                    "GitHub Enterprise Server's URL (the API is its `/api/v3`); tests point it at a stand-in. HTTPS, or HTTP on a loopback address only."
            ),
            .init(
                key: "external-github-email-optional",
                environment: ["LATCHKEY_EXTERNAL_GITHUB_EMAIL_OPTIONAL", "GOTRUE_EXTERNAL_GITHUB_EMAIL_OPTIONAL"], defaultValue: "false",
                summary:
                    "Sign in GitHub users whose primary address is unverified or hidden, without an address."
            ),
            .init(
                key: "external-ios-bundle-id", environment: ["LATCHKEY_EXTERNAL_IOS_BUNDLE_ID", "GOTRUE_EXTERNAL_IOS_BUNDLE_ID"],
                defaultValue: "",
                summary: "The iOS app's bundle id: a further audience Apple's id tokens may carry (Sign in with Apple on the device)."),
            .init(
                key: "external-apple-issuer", environment: ["LATCHKEY_EXTERNAL_APPLE_ISSUER"],
                defaultValue: "https://appleid.apple.com, https://account.apple.com",
                summary:
                    "The issuer Apple's id tokens must name, in place of Apple's own: for tests and self-hosted stand-ins. HTTPS, or HTTP on a loopback address only."
            ),
            .init(
                key: "external-google-issuer", environment: ["LATCHKEY_EXTERNAL_GOOGLE_ISSUER"],
                defaultValue: "https://accounts.google.com",
                summary:
                    "The issuer Google's id tokens must name, in place of Google's own: for tests and self-hosted stand-ins. HTTPS, or HTTP on a loopback address only."
            ),
            .init(
                key: "external-oidc-cache-ttl",
                environment: ["LATCHKEY_EXTERNAL_OIDC_CACHE_TTL", "GOTRUE_EXTERNAL_OIDC_PROVIDER_CACHE_TTL"], defaultValue: "3600",
                summary:
                    "Seconds (or a duration like `1h`) an issuer's signing keys are used before they are fetched again; a token signed by a key not yet seen fetches them sooner, at most once per 30 seconds."
            ),
            .init(
                key: "mailer-allow-unverified-email-sign-ins",
                environment: ["LATCHKEY_MAILER_ALLOW_UNVERIFIED_EMAIL_SIGN_INS", "GOTRUE_MAILER_ALLOW_UNVERIFIED_EMAIL_SIGN_INS"],
                defaultValue: "false",
                summary:
                    "Sign in with a provider's identity whose address the provider does not vouch for (the address stays unconfirmed, and is never linked to an existing account). Off: such a sign-in answers 422 `provider_email_needs_verification` and stores nothing."
            ),
        ]
}

extension Setting {
    /// GoTrue's wallet sign-in settings: read and checked, answered as GoTrue answers them with both
    /// chains off until wallet sign-in is built.
    static let web3: [Setting] = [
        .init(
            key: "external-web3-solana-enabled", environment: ["GOTRUE_EXTERNAL_WEB3_SOLANA_ENABLED"], defaultValue: "false",
            summary:
                "GoTrue's Sign in with Solana. Accepted; wallet sign-in is not built yet, so `grant_type=web3` answers `422 web3_provider_disabled` as GoTrue does with it off, and the start-up log says so."
        ),
        .init(
            key: "external-web3-solana-maximum-validity-duration",
            environment: ["GOTRUE_EXTERNAL_WEB3_SOLANA_MAXIMUM_VALIDITY_DURATION"], defaultValue: "10m",
            summary: "GoTrue's longest validity of a Solana sign-in message; read and checked, unused until wallet sign-in lands."
        ),
        .init(
            key: "external-web3-ethereum-enabled", environment: ["GOTRUE_EXTERNAL_WEB3_ETHEREUM_ENABLED"], defaultValue: "false",
            summary:
                "GoTrue's Sign in with Ethereum. Accepted; wallet sign-in is not built yet, so `grant_type=web3` answers `422 web3_provider_disabled` as GoTrue does with it off, and the start-up log says so."
        ),
        .init(
            key: "external-web3-ethereum-maximum-validity-duration",
            environment: ["GOTRUE_EXTERNAL_WEB3_ETHEREUM_MAXIMUM_VALIDITY_DURATION"], defaultValue: "10m",
            summary: "GoTrue's longest validity of an Ethereum sign-in message; read and checked, unused until wallet sign-in lands."
        ),
    ]
}
