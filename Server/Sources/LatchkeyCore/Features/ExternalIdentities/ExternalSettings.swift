import Foundation

/// How users sign in with other providers' identities.
public struct ExternalSettings: Sendable, Equatable {
    /// Apple, Google, Microsoft and Keycloak, each on or off (`GOTRUE_EXTERNAL_<P>_*`).
    public var providers: [IdentityProvider]
    /// Sign in with an address the provider does not vouch for
    /// (`GOTRUE_MAILER_ALLOW_UNVERIFIED_EMAIL_SIGN_INS`).
    public var allowUnverifiedEmailSignIns: Bool
    /// How long an issuer's keys are used before they are fetched again
    /// (`GOTRUE_EXTERNAL_OIDC_PROVIDER_CACHE_TTL`, seconds).
    public var keyCacheTTL: TimeInterval
    /// Signed-in users link and unlink identities themselves (`GOTRUE_SECURITY_MANUAL_LINKING_ENABLED`).
    public var manualLinking: Bool
    /// Custom providers' users join the confirmed account of their vouched address.
    public var customLinkByEmail: Bool = false

    public init(
        providers: [IdentityProvider] = [], allowUnverifiedEmailSignIns: Bool = false, keyCacheTTL: TimeInterval = 3600,
        manualLinking: Bool = false
    ) {
        self.providers = providers
        self.allowUnverifiedEmailSignIns = allowUnverifiedEmailSignIns
        self.keyCacheTTL = keyCacheTTL
        self.manualLinking = manualLinking
    }

    /// GoTrue's `/settings` `external` entries for every provider it knows, off unless
    /// configured here.
    public var reported: [String: Bool] {
        var entries = Dictionary(uniqueKeysWithValues: Self.gotrueProviders.map { ($0, false) })
        for provider in providers where !provider.name.hasPrefix("custom:") { entries[provider.name] = provider.enabled }
        return entries
    }

    /// The providers GoTrue's `/settings` lists.
    static let gotrueProviders = [
        "apple", "azure", "bitbucket", "discord", "facebook", "snapchat", "figma", "fly", "github", "gitlab", "google",
        "keycloak", "kakao", "linkedin", "linkedin_oidc", "notion", "spotify", "slack", "slack_oidc", "workos", "twitch", "twitter",
        "zoom",
    ]
}
