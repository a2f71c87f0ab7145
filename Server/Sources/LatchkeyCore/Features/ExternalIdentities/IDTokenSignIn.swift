import Foundation
import LatchkeyAPI
import Logging

/// `POST /token?grant_type=id_token`: a user signs in with the id token a provider (Sign in with
/// Apple, Google Sign-In, Microsoft, Keycloak) issued to the app.
///
/// The token's signature must verify under a key its issuer publishes; its issuer, audience,
/// times, nonce and `at_hash` are checked here. Its subject then names an identity: a known one
/// signs its user in; a new one is linked to the user with the same address only when the
/// provider vouches for the address **and** that user confirmed it, and otherwise makes a new
/// user. Every write is decided on the copy it is written over, and decided again when another
/// request wrote first.
public struct IDTokenSignIn: Sendable {
    /// What the grant is configured with.
    public struct Settings: Sendable {
        /// The providers, enabled or not (`/settings` lists them).
        public var providers: [IdentityProvider]
        /// `/token` requests per client IP.
        public var tokenPerIP: RateLimit
        /// No new users (`GOTRUE_DISABLE_SIGNUP`).
        public var disableSignup: Bool
        /// Addresses need no confirmation (`GOTRUE_MAILER_AUTOCONFIRM`): a provider's unverified
        /// address counts as verified, as in GoTrue.
        public var mailerAutoconfirm: Bool
        /// Sign in with an address the provider does not vouch for, leaving it unconfirmed
        /// (`GOTRUE_MAILER_ALLOW_UNVERIFIED_EMAIL_SIGN_INS`). Off: such a sign-in is refused and
        /// stores nothing.
        public var allowUnverifiedEmailSignIns: Bool
        /// The `aud` of new users (`GOTRUE_JWT_AUD`).
        public var audience: String
        /// The largest `data` a sign-up may carry, in bytes of JSON.
        public var userMetadataMaxBytes: Int
        /// How far a token's `exp`, `iat` and `nbf` may be off the server's clock.
        public var leeway: TimeInterval
        /// `link_identity` is allowed (`GOTRUE_SECURITY_MANUAL_LINKING_ENABLED`), as the redirect
        /// form of linking is.
        public var manualLinking: Bool
        /// A custom provider's user joins the confirmed account of the address it vouches for
        /// (`LATCHKEY_EXTERNAL_CUSTOM_LINK_BY_EMAIL`). Off: an operator's own IdP vouching for an
        /// address does not give its users the accounts of those addresses; the user is made
        /// without it, and the owner can link the provider themselves.
        public var customLinkByEmail: Bool

        public init(
            providers: [IdentityProvider], tokenPerIP: RateLimit, disableSignup: Bool = false, mailerAutoconfirm: Bool = false,
            allowUnverifiedEmailSignIns: Bool = false, audience: String = "authenticated", userMetadataMaxBytes: Int = 16_384,
            leeway: TimeInterval = 30, manualLinking: Bool = false, customLinkByEmail: Bool = false
        ) {
            self.manualLinking = manualLinking
            self.customLinkByEmail = customLinkByEmail
            self.providers = providers
            self.tokenPerIP = tokenPerIP
            self.disableSignup = disableSignup
            self.mailerAutoconfirm = mailerAutoconfirm
            self.allowUnverifiedEmailSignIns = allowUnverifiedEmailSignIns
            self.audience = audience
            self.userMetadataMaxBytes = userMetadataMaxBytes
            self.leeway = leeway
        }

        /// The settings of `configuration`.
        public init(_ configuration: AuthConfiguration) {
            self.init(
                providers: configuration.external.providers, tokenPerIP: configuration.rateLimits.tokenPerIP,
                disableSignup: configuration.disableSignup, mailerAutoconfirm: configuration.mailerAutoconfirm,
                allowUnverifiedEmailSignIns: configuration.external.allowUnverifiedEmailSignIns, audience: configuration.jwt.audience,
                userMetadataMaxBytes: configuration.userMetadataMaxBytes, manualLinking: configuration.external.manualLinking,
                customLinkByEmail: configuration.external.customLinkByEmail)
        }
    }

    let store: any ExternalIdentityStore
    let tokens: any IDTokenReader
    let limiter: RateLimiter
    let settings: Settings
    let records: Records
    let logger: Logger
    /// Providers added at run time (`custom:<name>`).
    let directory: (any ProviderDirectory)?
    /// Where Apple's refresh tokens are kept for revocation with the account; `nil`: not kept.
    let grants: ProviderGrants?

    public init(
        store: any ExternalIdentityStore, tokens: any IDTokenReader, limiter: RateLimiter, settings: Settings, records: Records,
        logger: Logger, directory: (any ProviderDirectory)? = nil, grants: ProviderGrants? = nil
    ) {
        self.grants = grants
        self.store = store
        self.tokens = tokens
        self.limiter = limiter
        self.settings = settings
        self.records = records
        self.logger = logger
        self.directory = directory
    }

    /// The provider `name` names: a configured one, or a custom one (`custom:<name>`).
    public func lookup(_ name: String) async throws -> IdentityProvider? {
        if name.hasPrefix("custom:") { return try await directory?.provider(named: name) }
        return settings.providers.first { $0.name == name }
    }

    /// Signs in with the request's id token; with `link_identity`, links it to the user of
    /// `principal` (the request's bearer token) instead and answers a new session of that user.
    public func signIn(_ request: IDTokenGrantRequest, principal: Principal? = nil, client: ClientInfo) async throws -> Session {
        try await limiter.hit([.tokenRequests(from: client, settings.tokenPerIP)])
        guard let idToken = request.idToken, !idToken.isEmpty else { throw Self.invalidRequest("id_token required") }
        let linking = request.linkIdentity == true
        if linking {
            guard settings.manualLinking else { throw IdentityLinks.disabled }
            guard let principal else { throw Self.invalidRequest("Linking requires a valid user access token in Authorization") }
            guard principal.session != nil else { throw AuthError.sessionNotFound }
            // Refused before the provider's token is checked: a stolen password alone adds no way in.
            try SecondFactorGate.check(principal.session, factors: principal.factors, to: "link an identity")
        }
        let (provider, issuer) = try await resolve(request, idToken: idToken)
        try UserMetadata.check(request.data ?? [:], maxBytes: settings.userMetadataMaxBytes)
        let user = try await verify(idToken, request: request, provider: provider, issuer: issuer, client: client)
        let session: Session
        if linking, let principal, let linkingSession = LinkingSession(principal) {
            session = try await link(user, provider: provider, to: linkingSession, client: client)
        } else {
            session = try await signIn(user, provider: provider, data: request.data ?? [:], client: client)
        }
        if let grants, let code = request.authorizationCode, ProviderGrants.revoked.contains(provider.name) {
            // The app's client id: the token's audience among the provider's (checked above).
            let audience = tokens.unverifiedClaims(idToken)?["aud"]
            let audiences = audience?.stringValue.map { [$0] } ?? audience?.arrayValue?.compactMap(\.stringValue) ?? []
            if let clientID = audiences.first(where: provider.clientIDs.contains) {
                await grants.keep(code: code, clientID: clientID, userID: session.user.id, subject: user.subject, provider: provider)
            }
        }
        return session
    }

    /// A `/token` error in OAuth's shape, as GoTrue words it (`invalid request`, with a space).
    static func invalidRequest(_ description: String) -> AuthError {
        AuthError(.validationFailed, description, oauthError: "invalid request")
    }

    /// GoTrue's answer to every token that does not verify.
    static let badIDToken = invalidRequest("Bad ID token")
}
