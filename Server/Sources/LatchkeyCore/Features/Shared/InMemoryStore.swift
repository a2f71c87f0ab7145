import Foundation
import Synchronization

/// Every feature's store in memory, for unit tests: one type conforming to each narrow store
/// protocol (its conformances sit beside the protocols, as `InMemoryStore+<Feature>.swift` in
/// the feature folders), over one state, with the SQL stores' atomicity.
///
/// Every call is one step under one lock, and that step is the SQL store's transaction: it
/// counts the rate-limit counters the call takes (a limit passed keeps only the counters, as a
/// refused transaction commits its counters), checks the preconditions of the write (a user is
/// written only at the version it was read at; a token, flow state or challenge is spent once),
/// and records the audit events with the change they go with. Deleting a user takes what the
/// SQL schema deletes with it (`ON DELETE CASCADE`). The contract suites in `LatchkeyStoreTests`
/// hold it to the SQL stores' answers, over the same tests.
///
/// Tests place records with ``add(_:)-(UserRecord)`` and its overloads, land another request's
/// write with ``change(_:_:)`` and ``remove(_:)``, and read what was stored through the
/// properties below.
public final class InMemoryStore: Sendable {
    struct State {
        var users: [UUID: UserRecord] = [:]
        var identities: [IdentityRecord] = []
        var sessions: [UUID: SessionRecord] = [:]
        var flows: [FlowStateRecord] = []
        var tokens: [OneTimeTokenRecord] = []
        var outbox: [OutboxRecord] = []
        /// Leases of claimed outbox messages, until when.
        var outboxLeases: [UUID: Date] = [:]
        /// Outbox messages sent or given up on (kept, as the SQL store keeps them a week).
        var outboxFinished: Set<UUID> = []
        /// The finished messages that were given up on (the others were sent).
        var outboxFailed: Set<UUID> = []
        var webhookEndpoints: [WebhookEndpointRecord] = []
        /// The development mailbox, oldest first.
        var mailbox: [StoredEmail] = []
        var factors: [UUID: FactorRecord] = [:]
        var challenges: [UUID: FactorChallengeRecord] = [:]
        var recoveryCodes: [RecoveryCodeRecord] = []
        var deviceKeys: [DeviceKeyRecord] = []
        /// The `jti`s redeemed per device key, with when each may be forgotten.
        var assertions: [UUID: [String: Date]] = [:]
        var vaults: [UUID: KeyVaultRecord] = [:]
        var signerBackups: [UUID: SignerBackupRecord] = [:]
        var signerRecoveryKeys: [UUID: String] = [:]
        var signingKeys: [SigningKeyRecord] = []
        var customProviders: [CustomProviderRecord] = []
        var oauthClients: [UUID: OAuthClientRecord] = [:]
        /// When each deleted client was deleted (GoTrue's soft delete).
        var deletedOAuthClients: [UUID: Date] = [:]
        var oauthAuthorizations: [UUID: OAuthAuthorizationRecord] = [:]
        var oauthConsents: [OAuthConsentRecord] = []
        var passkeys: [PasskeyRecord] = []
        var webAuthnChallenges: [UUID: WebAuthnChallengeRecord] = [:]
        var providerGrants: [ProviderGrantRecord] = []
        /// Audit events in the order they were recorded. Recording one queues its webhook
        /// deliveries in the same step, as the SQL store does in the same transaction.
        var events: [AuditEvent] = [] {
            didSet {
                if events.count > oldValue.count { queueWebhooks(announcing: events[oldValue.count...]) }
            }
        }
        var counts: [RateLimitWindow: Int] = [:]
    }

    /// One fixed rate-limit window of one key.
    struct RateLimitWindow: Hashable {
        let key: String
        let start: Date
    }

    let state = Mutex(State())

    public init() {}

    // MARK: Placing records

    /// Adds or replaces a user, as sign-up or an operator would.
    public func add(_ user: UserRecord) { state.withLock { $0.users[user.id] = user } }
    /// Adds or replaces a session, as a sign-in would.
    public func add(_ session: SessionRecord) { state.withLock { $0.sessions[session.id] = session } }
    /// Adds a flow state, as a link opened in a browser would.
    public func add(_ flow: FlowStateRecord) { state.withLock { $0.flows.append(flow) } }
    /// Adds an outstanding one-time token, as sending a code would (the user's older ones of its
    /// kind stay: tests place them as they need).
    public func add(_ token: OneTimeTokenRecord) { state.withLock { $0.tokens.append(token) } }
    /// Adds or replaces a second factor, as enrolment would.
    public func add(_ factor: FactorRecord) { state.withLock { $0.factors[factor.id] = factor } }
    /// Adds an identity, as a sign-in with a provider would.
    public func add(_ identity: IdentityRecord) { state.withLock { $0.identities.append(identity) } }
    /// Adds a device key, as registration would.
    public func add(_ key: DeviceKeyRecord) { state.withLock { $0.deviceKeys.append(key) } }

    /// Replaces a stored user as another request would: at its version, which moves on.
    public func change(_ id: UUID, _ edit: (inout UserRecord) -> Void) {
        state.withLock { state in
            guard var user = state.users[id] else { return }
            edit(&user)
            user.version += 1
            state.users[id] = user
        }
    }

    /// Deletes a user with what goes with it, as an operator would.
    public func remove(_ id: UUID) { state.withLock { _ = $0.deleteUser(id) } }
    /// Ends a session, as a sign-out or a ban would.
    public func removeSession(id: UUID) { state.withLock { _ = $0.sessions.removeValue(forKey: id) } }

    // MARK: Reading what is stored

    /// The id of a stored user (any one): for tests that land a write on the only user.
    public var anyUserID: UUID? { state.withLock { $0.users.keys.first } }
    /// How many sessions are stored.
    public var sessionCount: Int { state.withLock { $0.sessions.count } }
    /// The session with this id, as stored now.
    public func session(id: UUID) -> SessionRecord? { state.withLock { $0.sessions[id] } }
    /// The sessions of a user, as stored now.
    public func sessions(userID: UUID) -> [SessionRecord] { state.withLock { $0.sessions.values.filter { $0.userID == userID } } }
    /// The user's tokens as stored now, spent ones included, oldest first.
    public func tokens(userID: UUID) -> [OneTimeTokenRecord] { state.withLock { $0.tokens.filter { $0.userID == userID } } }
    /// The messages queued so far, oldest first.
    public var outbox: [OutboxRecord] { state.withLock { $0.outbox } }
    /// The flow states stored so far (links opened in a browser).
    public var flowStates: [FlowStateRecord] { state.withLock { $0.flows } }
    /// The audit events recorded so far, oldest first.
    public var events: [AuditEvent] { state.withLock { $0.events } }
}

extension InMemoryStore: UserReading, AccountReading, AuditWriting {
    public func user(id: UUID) async throws -> UserRecord? { state.withLock { $0.users[id] } }

    public func user(email: String) async throws -> UserRecord? {
        state.withLock { $0.users.values.first { $0.email == email } }
    }

    public func user(phone: String) async throws -> UserRecord? {
        state.withLock { $0.users.values.first { $0.phone == phone } }
    }

    public func account(userID: UUID, sessionID: UUID?) async throws -> AccountRecords {
        state.withLock { state in
            guard let user = state.users[userID] else { return AccountRecords(user: nil, session: nil, identities: [], factors: []) }
            return state.account(user, session: sessionID.flatMap { state.sessions[$0] })
        }
    }

    public func appendAudit(_ events: [AuditEvent]) async throws { state.withLock { $0.events += events } }
}

extension InMemoryStore.State {
    /// ``StoreError/duplicate(_:)`` when another user has `user`'s address or number, as the SQL
    /// stores' unique indexes answer.
    func checkUnique(_ user: UserRecord) throws {
        let other = users.values.first { other in
            other.id != user.id && ((user.email != nil && other.email == user.email) || (user.phone != nil && other.phone == user.phone))
        }
        if let other { throw StoreError.duplicate("user \(other.id) has the address or number") }
    }

    /// ``StoreError/duplicate(_:)`` when `user`'s id, address or number is taken.
    func checkNew(_ user: UserRecord) throws {
        guard users[user.id] == nil else { throw StoreError.duplicate("user \(user.id)") }
        try checkUnique(user)
    }

    /// Stores a new user with its identity, as one insert: ``StoreError/duplicate(_:)`` when the
    /// id, address or number is taken.
    mutating func insert(_ user: UserRecord, identity: IdentityRecord?) throws {
        try checkNew(user)
        users[user.id] = user
        if let identity { identities.append(identity) }
    }

    /// Writes `user` over the stored one while that is still at the version `user` was read at,
    /// as the SQL stores do: ``StoreError/notFound(_:)`` for a deleted user,
    /// ``StoreError/conflict(_:)`` for one written since, ``StoreError/duplicate(_:)`` for an
    /// address or number another user has.
    mutating func write(_ user: UserRecord) throws {
        guard let stored = users[user.id] else { throw StoreError.notFound("user \(user.id)") }
        guard stored.version == user.version else {
            throw StoreError.conflict("user \(user.id) changed since it was read at version \(user.version)")
        }
        try checkUnique(user)
        var written = user
        written.version += 1
        users[user.id] = written
    }

    /// Deletes a user and the rows the SQL schema deletes with it; whether there was one.
    @discardableResult
    mutating func deleteUser(_ id: UUID) -> Bool {
        guard users.removeValue(forKey: id) != nil else { return false }
        identities.removeAll { $0.userID == id }
        sessions = sessions.filter { $0.value.userID != id }
        flows.removeAll { $0.userID == id }
        tokens.removeAll { $0.userID == id }
        let factorIDs = Set(factors.values.filter { $0.userID == id }.map(\.id))
        factors = factors.filter { !factorIDs.contains($0.key) }
        challenges = challenges.filter { !factorIDs.contains($0.value.factorID) }
        recoveryCodes.removeAll { $0.userID == id }
        let keyIDs = Set(deviceKeys.filter { $0.userID == id }.map(\.id))
        deviceKeys.removeAll { keyIDs.contains($0.id) }
        assertions = assertions.filter { !keyIDs.contains($0.key) }
        vaults = vaults.filter { $0.value.userID != id }
        passkeys.removeAll { $0.userID == id }
        providerGrants.removeAll { $0.userID == id }
        oauthAuthorizations = oauthAuthorizations.filter { $0.value.userID != id }
        oauthConsents.removeAll { $0.userID == id }
        webAuthnChallenges = webAuthnChallenges.filter { $0.value.userID != id }
        signerBackups[id] = nil
        signerRecoveryKeys[id] = nil
        return true
    }

    /// The user with `session`, its identities and factors, as one read.
    func account(_ user: UserRecord, session: SessionRecord?) -> AccountRecords {
        AccountRecords(
            user: user, session: session, identities: identities.filter { $0.userID == user.id }, factors: factors(userID: user.id))
    }

    /// The user's factors, oldest first (ties by id), as the SQL stores order them.
    func factors(userID: UUID) -> [FactorRecord] {
        factors.values.filter { $0.userID == userID }.sorted {
            ($0.createdAt, $0.id.lowercasedString) < ($1.createdAt, $1.id.lowercasedString)
        }
    }
}
