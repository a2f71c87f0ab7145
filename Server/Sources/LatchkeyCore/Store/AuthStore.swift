import Foundation

/// Persistence for everything Latchkey remembers. Each method is atomic.
///
/// It refines the narrow protocols of the features that have moved to slices (``KeyVaultStore``,
/// ``SignerBackupStore``, ``DeviceKeyStore``, ``AuditLogStore``, ``FactorStore``, ``RateLimitStore``,
/// ``SessionRefreshStore``, ``SigningKeyStore``, ``PasswordSignInStore``, ``AuthCodeExchangeStore``,
/// ``AnonymousUserStore``, ``VerificationStore``, ``CodeStore``, ``UserAccountStore``, ``SignUpStore``, ``AdminUserStore``, ``ExternalIdentityStore``, ``CustomProviderStore``, ``PasskeyStore``, ``AccountReading``, ``OutboxStore``, ``DevMailboxStore``); `InMemoryStore` serves them
/// all in memory.
/// Implementation: `SQLAuthStore`, on SQLite or PostgreSQL. The contract suite in
/// `LatchkeyStoreTests` runs against every implementation.
public protocol AuthStore:
    KeyVaultStore, SignerBackupStore, DeviceKeyStore, DeviceKeySignInStore, AuditLogStore, FactorStore, RateLimitStore,
    SessionRefreshStore, SigningKeyStore, PasswordSignInStore, AuthCodeExchangeStore, AnonymousUserStore, VerificationStore,
    CodeStore, UserAccountStore, SignUpStore, AdminUserStore, ExternalIdentityStore, CustomProviderStore, PasskeyStore, AccountReading,
    WebhookStore, ProviderGrantStore, OutboxStore, DevMailboxStore, MaintenanceStore
{
    /// Creates or upgrades the schema.
    func migrate() async throws

    // MARK: Users

    func identities(userID: UUID) async throws -> [IdentityRecord]

    // MARK: Sessions

    func session(id: UUID) async throws -> SessionRecord?

    // MARK: Server secret

    /// Records `verifier` as the server secret's unless one is recorded, and returns the one
    /// recorded (the first instance to start sets it; every later one compares).
    func claimServerSecretVerifier(_ verifier: String) async throws -> String

    // MARK: Maintenance

}

extension AuthStore {
    /// Inserts a user with nothing for the audit log.
    public func createUser(_ user: UserRecord, identity: IdentityRecord, token: OneTimeTokenRecord?, outbox: [OutboxRecord]) async throws {
        try await createUser(user, identity: identity, token: token, outbox: outbox, audit: [], limits: [])
    }

    /// Inserts a user, counting no rate limit.
    public func createUser(
        _ user: UserRecord, identity: IdentityRecord, token: OneTimeTokenRecord?, outbox: [OutboxRecord], audit: [AuditEvent]
    ) async throws {
        try await createUser(user, identity: identity, token: token, outbox: outbox, audit: audit, limits: [])
    }

    /// Stores a session with nothing for the audit log.
    public func createSession(_ session: SessionRecord, user: UserRecord) async throws {
        try await createSession(session, user: user, audit: [])
    }

    /// Replaces tokens with nothing for the audit log.
    public func replaceOneTimeTokens(_ tokens: [OneTimeTokenRecord], user: UserRecord, outbox: [OutboxRecord]) async throws {
        try await replaceOneTimeTokens(tokens, user: user, outbox: outbox, audit: [])
    }

    /// Deletes sessions with nothing for the audit log.
    public func deleteSessions(userID: UUID, except keeping: UUID?) async throws {
        try await deleteSessions(userID: userID, except: keeping, audit: [])
    }

    /// Deletes a session with nothing for the audit log.
    public func deleteSession(id: UUID) async throws { try await deleteSession(id: id, audit: []) }

    /// Deletes a user with nothing for the audit log.
    public func deleteUser(id: UUID) async throws -> Bool { try await deleteUser(id: id, audit: []) }
}
