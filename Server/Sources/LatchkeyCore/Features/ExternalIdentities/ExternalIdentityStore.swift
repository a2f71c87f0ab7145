import Foundation

/// What signing in with a provider's identity needs from storage.
public protocol ExternalIdentityStore: UserReading, AccountReading, AuditWriting {
    /// The identity `provider` knows as `providerID`, with its user.
    func identity(provider: String, providerID: String) async throws -> (identity: IdentityRecord, user: UserRecord)?
    /// The user with this address (lowercased).
    func user(email: String) async throws -> UserRecord?
    /// Applies a sign-in's write in one transaction: the user inserted, or written while still
    /// at the version it was read at (``StoreError/conflict(_:)`` otherwise); the identity
    /// inserted (``StoreError/duplicate(_:)`` when the provider's subject or the address was
    /// taken meanwhile) or its data replaced; the session (or the flow state) and the events stored.
    func applyExternalSignIn(_ write: ExternalSignInWrite) async throws
    /// The user's identities, oldest first.
    func identities(userID: UUID) async throws -> [IdentityRecord]
    /// Deletes the user's identity `id` and writes `user` (read at its version), the events and
    /// the messages in one transaction, provided another identity remains and `held` (when
    /// given) still exists at its level; `false` (nothing written) when the identity is not the
    /// user's or is its last; ``StoreError/conflict(_:)`` when `held` is gone or changed level.
    func unlinkIdentity(id: UUID, user: UserRecord, held: SessionRecord?, audit: [AuditEvent], outbox: [OutboxRecord])
        async throws -> Bool
}

/// One sign-in with a provider's identity, decided: what the store writes.
public struct ExternalSignInWrite: Sendable, Equatable {
    public enum UserWrite: Sendable, Equatable {
        /// A new user.
        case insert(UserRecord)
        /// The user as read (its `version`), changed.
        case update(UserRecord)
    }

    public enum IdentityWrite: Sendable, Equatable {
        /// A new identity (a new user's, or one linked to an existing user).
        case insert(IdentityRecord)
        /// The identity's data and times, replaced.
        case update(IdentityRecord)
    }

    public var user: UserWrite
    public var identity: IdentityWrite
    /// The new session; `nil` when the app finishes the sign-in by exchanging a code (`flow`).
    public var session: SessionRecord?
    /// The PKCE flow state the app's code redeems, for a redirect flow with a challenge.
    public var flow: FlowStateRecord?
    public var audit: [AuditEvent]
    /// Messages to queue with the write (the owner's notice of a link).
    public var outbox: [OutboxRecord]
    /// The session a link is made under: the write is applied only while it exists at the level
    /// it was read at (``StoreError/conflict(_:)`` otherwise).
    public var held: SessionRecord?

    public init(
        user: UserWrite, identity: IdentityWrite, session: SessionRecord?, flow: FlowStateRecord? = nil, audit: [AuditEvent],
        outbox: [OutboxRecord] = [], held: SessionRecord? = nil
    ) {
        self.user = user
        self.identity = identity
        self.session = session
        self.flow = flow
        self.audit = audit
        self.outbox = outbox
        self.held = held
    }
}
