import Foundation

/// What the redirect flow needs from a provider over the network.
public protocol OAuthProviderClient: Sendable {
    /// The provider's authorization endpoint (from its OpenID discovery document).
    func authorizationEndpoint(for provider: IdentityProvider) async throws -> String
    /// Exchanges an authorization code at the provider's token endpoint.
    func exchange(code: String, verifier: String?, provider: IdentityProvider) async throws -> ProviderTokens
    /// A provider without id tokens (GitHub): its user, read from its API with the access token.
    func user(accessToken: String, provider: IdentityProvider) async throws -> ProviderUser
    /// Exchanges a code the provider gave an app on the device (Sign in with Apple's
    /// `authorizationCode`): `clientID` is the app's, and no redirect took place.
    func exchangeNativeCode(_ code: String, clientID: String, provider: IdentityProvider) async throws -> ProviderTokens
    /// Revokes a refresh token at the provider's revocation endpoint (RFC 7009).
    func revoke(refreshToken: String, clientID: String, provider: IdentityProvider) async throws
}

/// What a provider's token endpoint answered.
public struct ProviderTokens: Sendable, Equatable {
    public var accessToken: String
    public var refreshToken: String?
    public var idToken: String?

    public init(accessToken: String, refreshToken: String? = nil, idToken: String? = nil) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.idToken = idToken
    }
}

/// The provider could not be reached or refused the exchange.
public struct ProviderExchangeError: Error, Sendable, CustomStringConvertible {
    public var detail: String
    public init(_ detail: String) { self.detail = detail }
    public var description: String { detail }
}
