import Foundation
import LatchkeyAPI
import Logging

/// A provider's refresh token for one of a user's identities, kept sealed so that deleting the
/// account can revoke the app's access at the provider (Apple requires it of apps with Sign in
/// with Apple: App Store Review Guideline 5.1.1(v)).
public struct ProviderGrantRecord: Sendable, Equatable {
    public var userID: UUID
    public var provider: String
    /// The identity's subject at the provider.
    public var subject: String
    /// The client the token was issued to (an app's bundle id, or the web flow's Services ID).
    public var clientID: String
    /// The refresh token, sealed (``SecretBox``, bound to user, provider and subject).
    public var sealedRefreshToken: String
    public var createdAt: Date

    public init(userID: UUID, provider: String, subject: String, clientID: String, sealedRefreshToken: String, createdAt: Date) {
        self.userID = userID
        self.provider = provider
        self.subject = subject
        self.clientID = clientID
        self.sealedRefreshToken = sealedRefreshToken
        self.createdAt = createdAt
    }
}

/// Where grants are kept.
public protocol ProviderGrantStore: Sendable {
    /// Keeps `grant`, replacing the one of the same user, provider and subject. A user deleted
    /// meanwhile keeps nothing (``StoreError/notFound(_:)``).
    func saveProviderGrant(_ grant: ProviderGrantRecord) async throws
    /// The user's grants; they go with the user.
    func providerGrants(userID: UUID) async throws -> [ProviderGrantRecord]
}

/// Keeps the refresh tokens of the providers whose access is revoked with the account (Apple),
/// and revokes them when the account is deleted. Neither step decides anything else: a provider
/// that cannot be reached is logged, and the sign-in or the deletion stands.
public struct ProviderGrants: Sendable {
    /// The providers whose grants are kept.
    public static let revoked: Set<String> = ["apple"]

    let store: any ProviderGrantStore
    let client: any OAuthProviderClient
    let box: SecretBox
    let lookup: @Sendable (String) async throws -> IdentityProvider?
    let time: any TimeSource
    let logger: Logger

    public init(
        store: any ProviderGrantStore, client: any OAuthProviderClient, serverSecret: [UInt8],
        lookup: @escaping @Sendable (String) async throws -> IdentityProvider?, time: any TimeSource, logger: Logger
    ) {
        self.store = store
        self.client = client
        self.box = SecretBox(serverSecret: serverSecret, purpose: "latchkey provider refresh token v1")
        self.lookup = lookup
        self.time = time
        self.logger = logger
    }

    static func context(_ userID: UUID, _ provider: String, _ subject: String) -> String {
        "\(userID.lowercasedString) \(provider) \(subject)"
    }

    /// Exchanges the authorization code an app got on the device (Sign in with Apple's
    /// `authorizationCode`, for `clientID`, the app's bundle id) and keeps the refresh token.
    public func keep(code: String, clientID: String, userID: UUID, subject: String, provider: IdentityProvider) async {
        guard Self.revoked.contains(provider.name), !code.isEmpty, code.utf8.count <= 1024 else { return }
        guard provider.oauth != nil else {
            logger.info(
                "an authorization code came with the id token, but the provider has no key to exchange it",
                metadata: ["provider": "\(provider.name)"])
            return
        }
        do {
            let tokens = try await client.exchangeNativeCode(code, clientID: clientID, provider: provider)
            await keep(tokens, clientID: clientID, userID: userID, subject: subject, provider: provider)
        } catch {
            logger.warning(
                "the provider did not exchange the app's authorization code; its access cannot be revoked with the account",
                metadata: ["provider": "\(provider.name)", "error": "\(error)"])
        }
    }

    /// Keeps the refresh token of `tokens` (the web flow's exchange, or the above).
    public func keep(_ tokens: ProviderTokens, clientID: String, userID: UUID, subject: String, provider: IdentityProvider) async {
        guard Self.revoked.contains(provider.name), let refresh = tokens.refreshToken, !refresh.isEmpty else { return }
        do {
            let sealed = try box.seal(Array(refresh.utf8), context: Self.context(userID, provider.name, subject))
            try await store.saveProviderGrant(
                ProviderGrantRecord(
                    userID: userID, provider: provider.name, subject: subject, clientID: clientID, sealedRefreshToken: sealed,
                    createdAt: time.now()))
        } catch {
            logger.warning("a provider's refresh token was not kept", metadata: ["provider": "\(provider.name)", "error": "\(error)"])
        }
    }

    /// The user's grants, read before the user is deleted (they go with it).
    public func held(by userID: UUID) async -> [ProviderGrantRecord] {
        do {
            return try await store.providerGrants(userID: userID)
        } catch {
            logger.warning("the user's provider grants cannot be read", metadata: ["error": "\(error)"])
            return []
        }
    }

    /// Revokes each grant at its provider (after the account is gone).
    public func revoke(_ grants: [ProviderGrantRecord]) async {
        for grant in grants {
            do {
                guard let provider = try await lookup(grant.provider) else { throw ProviderExchangeError("unknown provider") }
                let token = try box.open(grant.sealedRefreshToken, context: Self.context(grant.userID, grant.provider, grant.subject))
                try await client.revoke(refreshToken: String(decoding: token, as: UTF8.self), clientID: grant.clientID, provider: provider)
                logger.info("the provider's access was revoked with the account", metadata: ["provider": "\(grant.provider)"])
            } catch {
                logger.warning(
                    "the provider's access was not revoked with the account",
                    metadata: ["provider": "\(grant.provider)", "error": "\(error)"])
            }
        }
    }
}
