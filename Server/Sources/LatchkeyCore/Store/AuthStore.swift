import Foundation

/// What the composition root asks of the database itself, before any use case runs: the schema,
/// the server secret's verifier, and a session read for tools and tests.
public protocol RootStore: Sendable {
    /// Creates or upgrades the schema.
    func migrate() async throws

    /// Records `verifier` as the server secret's unless one is recorded, and returns the one
    /// recorded (the first instance to start sets it; every later one compares).
    func claimServerSecretVerifier(_ verifier: String) async throws -> String

    /// A session by id, or nil.
    func session(id: UUID) async throws -> SessionRecord?
}

/// Persistence for everything Latchkey remembers, as the union of the narrow stores of the
/// features (issue #38): a composition, not a protocol, so nothing can be asked of it that no
/// feature's store asks. Only the composition root (`makeUseCases`) and the stores name it: each
/// use case and service holds its own narrow protocol, which `InMemoryStore` serves in memory.
/// Implementation: `SQLAuthStore`, on SQLite or PostgreSQL. The contract suites in
/// `LatchkeyStoreTests` run against every implementation.
public typealias AuthStore = RootStore
    & KeyVaultStore & SignerBackupStore & DeviceKeyStore & DeviceKeySignInStore & AuditLogStore & FactorStore & RateLimitStore
    & SessionRefreshStore & SigningKeyStore & PasswordSignInStore & AuthCodeExchangeStore & AnonymousUserStore & VerificationStore
    & CodeStore & UserAccountStore & SignUpStore & AdminUserStore & ExternalIdentityStore & CustomProviderStore & PasskeyStore
    & AccountReading & WebhookStore & ProviderGrantStore & OutboxStore & DevMailboxStore & MaintenanceStore & OAuthClientStore
