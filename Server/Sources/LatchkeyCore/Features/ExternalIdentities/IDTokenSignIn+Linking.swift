import Foundation
import LatchkeyAPI

/// The session a link is made under: the user's own, named by the bearer token of the id-token
/// grant or carried in the state of the redirect flow.
public struct LinkingSession: Sendable, Equatable, Codable {
    public var userID: UUID
    public var sessionID: UUID

    public init(userID: UUID, sessionID: UUID) {
        self.userID = userID
        self.sessionID = sessionID
    }

    /// The session of `principal`; `nil` for a token that names no session (an operator's).
    public init?(_ principal: Principal) {
        guard let session = principal.session else { return nil }
        self.init(userID: principal.user.id, sessionID: session.id)
    }
}

extension IDTokenSignIn {
    /// Links the provider's identity to the user of `linking`, as GoTrue's `link_identity`: an
    /// identity already linked anywhere is refused; a user without an address (an anonymous one)
    /// takes the provider's when the provider vouches for it and no one else has it, and becomes
    /// permanent. The answer is a new session of that user.
    ///
    /// A link adds a way in, so it is held to the second-factor rule: the session must still
    /// exist, and be `aal2` when the user has a verified factor (a stolen password alone must not
    /// add the thief's provider account). The write is made only while that session still exists
    /// at the level read, so a sign-out or a first factor landing in flight is decided again. The
    /// owner is told by email.
    public func link(
        _ external: ProviderUser, provider: IdentityProvider, to linking: LinkingSession, client: ClientInfo, method: String = "oauth"
    ) async throws -> Session {
        guard let user = try await store.user(id: linking.userID) else { throw AuthError.userNotFound }
        return try await store.onFreshCopies(of: user) { _ in
            let account = try await store.account(userID: linking.userID, sessionID: linking.sessionID)
            guard let user = account.user else { throw AuthError.userNotFound }
            guard let held = account.session, held.userID == user.id else { throw AuthError.sessionNotFound }
            try SecondFactorGate.check(held, factors: account.factors, to: "link an identity")
            let now = records.time.now()
            if let (identity, _) = try await store.identity(provider: provider.name, providerID: external.subject) {
                throw AuthError(
                    .identityAlreadyExists,
                    identity.userID == user.id ? "Identity is already linked" : "Identity is already linked to another user")
            }
            try await refuseIfBanned(user, provider: provider, client: client)
            var linked = user
            if linked.email == nil {
                if let email = external.email {
                    guard external.emailVerified || settings.mailerAutoconfirm else { throw Self.needsVerification(provider) }
                    if let holder = try await store.user(email: email), holder.id != user.id {
                        throw AuthError(.emailExists, "A user with this email address has already been registered")
                    }
                    linked.email = email
                    linked.emailConfirmedAt = now
                    linked.userMetadata["email_verified"] = true
                } else if !provider.emailOptional {
                    throw Self.needsVerification(provider)
                }
                // A provider's identity is a lasting way in: an anonymous user becomes permanent.
                linked.isAnonymous = false
            }
            return try await write(linked, external, provider: provider, held: held, client: client, now: now, method: method)
        }
    }

    /// Stores the link: the user (at the version read), the new identity, a new session, the
    /// owner's notice, while `held` still exists at its level.
    private func write(
        _ user: UserRecord, _ external: ProviderUser, provider: IdentityProvider, held: SessionRecord, client: ClientInfo, now: Date,
        method: String
    ) async throws -> Session {
        var linked = user
        linked.addProvider(provider.name)
        linked.updatedAt = now
        linked.lastSignInAt = now
        let identity = newIdentity(external, provider: provider, userID: user.id, now: now)
        let session = records.answers.newSession(for: linked, method: method, client: client, now: now)
        let audit = [records.events.event(.identityLinked, user: linked, details: Self.linked(identity), client: client)]
        let notice = try records.notices.notice(.identityLinked, to: linked, provider: provider.name)
        do {
            try await store.applyExternalSignIn(
                ExternalSignInWrite(
                    user: .update(linked), identity: .insert(identity), session: session, audit: audit, outbox: notice, held: held))
        } catch let error as StoreError where error.isDuplicate {
            // The identity was linked meanwhile (or the address taken): decide again.
            throw StoreError.conflict("linked meanwhile: \(error)")
        }
        records.notices.notify()
        return try await records.answers.answer(user: linked, session: session)
    }
}
