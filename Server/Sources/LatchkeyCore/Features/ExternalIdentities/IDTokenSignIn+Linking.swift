import Foundation
import LatchkeyAPI

extension IDTokenSignIn {
    /// Links the provider's identity to the user `userID` (the bearer of the request), as GoTrue's
    /// `link_identity`: an identity already linked anywhere is refused; a user without an address
    /// (an anonymous one) takes the provider's when the provider vouches for it and no one else
    /// has it, and becomes permanent. The answer is a new session of that user.
    public func link(_ external: ProviderUser, provider: IdentityProvider, to userID: UUID, client: ClientInfo) async throws -> Session {
        guard let user = try await store.user(id: userID) else { throw AuthError.userNotFound }
        return try await store.onFreshCopies(of: user) { user in
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
            return try await write(linked, external, provider: provider, client: client, now: now)
        }
    }

    /// Stores the link: the user (at the version read), the new identity, a new session.
    private func write(_ user: UserRecord, _ external: ProviderUser, provider: IdentityProvider, client: ClientInfo, now: Date)
        async throws -> Session
    {
        var linked = user
        linked.addProvider(provider.name)
        linked.updatedAt = now
        linked.lastSignInAt = now
        let identity = newIdentity(external, provider: provider, userID: user.id, now: now)
        let session = records.answers.newSession(for: linked, method: "oauth", client: client, now: now)
        let audit = [records.events.event(.identityLinked, user: linked, details: Self.linked(identity), client: client)]
        do {
            try await store.applyExternalSignIn(
                ExternalSignInWrite(user: .update(linked), identity: .insert(identity), session: session, audit: audit))
        } catch let error as StoreError where error.isDuplicate {
            // The identity was linked meanwhile (or the address taken): decide again.
            throw StoreError.conflict("linked meanwhile: \(error)")
        }
        return try await records.answers.answer(user: linked, session: session)
    }
}
