import Foundation

/// A provider whose OpenID Connect id tokens sign users in: which issuers it signs as, which
/// audiences (client ids) it issues to, and how strict the grant is about the nonce and the email.
public struct IdentityProvider: Sendable, Equatable {
    /// How the provider's issuer is recognised.
    public enum Issuers: Sendable, Equatable {
        /// One of these issuers, exactly (Apple's two, Google's, Keycloak's realm URL).
        case exact([String])
        /// Any tenant of Microsoft Entra ID: `https://login.microsoftonline.com/<tenant>/v2.0`.
        /// `GOTRUE_EXTERNAL_AZURE_URL`, when it names one tenant's issuer, narrows it to that one.
        case azureTenants
    }

    /// How the user's data is read from the claims.
    public enum Claims: Sendable, Equatable {
        /// Apple: the address is verified (Apple relays or checked it), `is_private_email`.
        case apple
        /// Google: `email_verified`, `hd` kept as a custom claim, `picture` as the avatar.
        case google
        /// Microsoft, one tenant (`GOTRUE_EXTERNAL_AZURE_URL`): the address is verified unless
        /// `xms_edov` says otherwise, as GoTrue reads it.
        case azure
        /// Microsoft, any tenant: the address is verified only when `xms_edov` says so. Any tenant's
        /// administrator can put any address in `email` unverified; taking it as verified when
        /// `xms_edov` is absent would link that tenant's user to the address's confirmed account
        /// ("nOAuth").
        case azureAnyTenant
        /// Any other OpenID provider: standard claims, strictly typed.
        case standard
        /// GitHub: no id token; the user and its emails come from its REST API.
        case github
    }

    /// `apple`, `google`, `azure`, `keycloak` or `custom:<name>`: the identities' `provider`.
    public var name: String
    public var enabled: Bool
    public var issuers: Issuers
    public var claims: Claims
    /// The accepted audiences: the client ids (`GOTRUE_EXTERNAL_<P>_CLIENT_ID`, a comma-separated
    /// list; for Apple also `GOTRUE_EXTERNAL_IOS_BUNDLE_ID`).
    public var clientIDs: [String]
    /// Accept tokens with no nonce (`GOTRUE_EXTERNAL_<P>_SKIP_NONCE_CHECK`): for provider SDKs
    /// that cannot pass one. Off by default.
    public var skipNonceCheck: Bool
    /// Sign in without an address when the token has none (`GOTRUE_EXTERNAL_<P>_EMAIL_OPTIONAL`).
    public var emailOptional: Bool
    /// The redirect flow (`GET /authorize`), when a secret is configured; `nil`: id tokens only.
    public var oauth: OAuthClientSettings?

    public init(
        name: String, enabled: Bool, issuers: Issuers, claims: Claims, clientIDs: [String], skipNonceCheck: Bool = false,
        emailOptional: Bool = false, oauth: OAuthClientSettings? = nil
    ) {
        self.name = name
        self.enabled = enabled
        self.issuers = issuers
        self.claims = claims
        self.clientIDs = clientIDs
        self.skipNonceCheck = skipNonceCheck
        self.emailOptional = emailOptional
        self.oauth = oauth
    }

    /// The issuer whose discovery document names the authorization and token endpoints: the
    /// configured one (Apple's first), or for Microsoft the common tenant.
    public var discoveryIssuer: String? {
        switch issuers {
        case .exact(let list): return list.first
        case .azureTenants: return "https://login.microsoftonline.com/common/v2.0"
        }
    }

    /// Apple's issuers: the one Sign in with Apple uses, and the one Apple introduced beside it.
    public static let appleIssuers = ["https://appleid.apple.com", "https://account.apple.com"]
    /// Google's issuer.
    public static let googleIssuer = "https://accounts.google.com"

    /// Whether the provider issues OpenID Connect id tokens (all but GitHub).
    public var isOpenID: Bool { claims != .github }

    /// The issuer a token names, spelled as this provider's keys are found under: Google's tokens
    /// may name it without its scheme (`accounts.google.com`).
    public func canonicalIssuer(_ issuer: String) -> String {
        issuer == "accounts.google.com" && claims == .google ? "https://" + issuer : issuer
    }

    /// Whether `issuer` is one this provider signs as.
    public func accepts(issuer: String) -> Bool {
        switch issuers {
        case .exact(let list): return list.contains(issuer)
        case .azureTenants: return Self.isAzureIssuer(issuer)
        }
    }

    /// `https://login.microsoftonline.com/<tenant>/v2.0`, the v2 issuer of one tenant.
    static func isAzureIssuer(_ issuer: String) -> Bool {
        let prefix = "https://login.microsoftonline.com/"
        guard issuer.hasPrefix(prefix) else { return false }
        let rest = issuer.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        guard rest.count == 2 || (rest.count == 3 && rest[2].isEmpty) else { return false }
        let tenant = rest[0]
        return rest[1] == "v2.0" && !tenant.isEmpty && tenant.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." }
    }
}
