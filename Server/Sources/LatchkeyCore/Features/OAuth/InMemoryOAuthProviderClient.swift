import Foundation
import Synchronization

/// ``OAuthProviderClient`` for unit tests: an authorization endpoint at `https://<name>.example`,
/// and codes ``approve(_:tokens:)`` registered, each exchanged once with the verifier it names.
public final class InMemoryOAuthProviderClient: OAuthProviderClient {
    struct Grant {
        var tokens: ProviderTokens
        var verifier: String?
    }

    private let grants = Mutex<[String: Grant]>([:])
    /// The verifiers exchanges were sent, in order.
    public let verifiers = Mutex<[String?]>([])

    public init() {}

    /// A code the provider answers with `tokens`.
    public func approve(_ code: String, tokens: ProviderTokens) {
        grants.withLock { $0[code] = Grant(tokens: tokens) }
    }

    public func authorizationEndpoint(for provider: IdentityProvider) async throws -> String {
        "https://\(provider.name).example/authorize"
    }

    /// The users ``user(accessToken:provider:)`` answers, by access token.
    public let users = Mutex<[String: ProviderUser]>([:])

    public func user(accessToken: String, provider: IdentityProvider) async throws -> ProviderUser {
        guard let user = users.withLock({ $0[accessToken] }) else { throw ProviderExchangeError("bad credentials") }
        return user
    }

    public func exchange(code: String, verifier: String?, provider: IdentityProvider) async throws -> ProviderTokens {
        verifiers.withLock { $0.append(verifier) }
        guard let grant = grants.withLock({ $0.removeValue(forKey: code) }) else { throw ProviderExchangeError("invalid_grant") }
        return grant.tokens
    }

    /// The clients native codes were exchanged for, in order.
    public let nativeClients = Mutex<[String]>([])

    public func exchangeNativeCode(_ code: String, clientID: String, provider: IdentityProvider) async throws -> ProviderTokens {
        nativeClients.withLock { $0.append(clientID) }
        guard let grant = grants.withLock({ $0.removeValue(forKey: code) }) else { throw ProviderExchangeError("invalid_grant") }
        return grant.tokens
    }

    /// The refresh tokens revoked, with their clients, in order.
    public let revoked = Mutex<[(token: String, clientID: String)]>([])

    public func revoke(refreshToken: String, clientID: String, provider: IdentityProvider) async throws {
        revoked.withLock { $0.append((refreshToken, clientID)) }
    }
}
