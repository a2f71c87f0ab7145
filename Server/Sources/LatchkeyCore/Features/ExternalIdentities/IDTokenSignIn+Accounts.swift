import Foundation
import LatchkeyAPI

extension IDTokenSignIn {
    /// Signs the provider's user in: decided, written on the copies it was decided from, and
    /// decided again when another request wrote first (a ban, a new address, the same identity
    /// made by a sign-in racing this one).
    func signIn(_ user: ProviderUser, provider: IdentityProvider, data: [String: JSONValue], client: ClientInfo) async throws
        -> Session
    {
        guard let session = try await complete(user, provider: provider, data: data, client: client, flow: nil) else {
            throw AuthError(.unexpectedFailure, "No session was made")
        }
        return session
    }

    /// Signs the provider's user in, answering the session; with `flow` (a redirect flow whose app
    /// sent a PKCE challenge), stores the flow state the app's code redeems instead, and answers `nil`.
    ///
    /// `method` is the session's `amr` method (`oauth` for a provider's id token; `web3` for a
    /// wallet's signed message), and the audit events' too (`id_token` for `oauth`, as GoTrue's).
    public func complete(
        _ user: ProviderUser, provider: IdentityProvider, data: [String: JSONValue], client: ClientInfo, flow: BrowserFlow?,
        method: String = "oauth"
    ) async throws -> Session? {
        var tries = 0
        while true {
            do {
                var (write, signedIn) = try await decide(user, provider: provider, data: data, client: client, method: method)
                if let flow, let session = write.session {
                    // The sign-in happens when the app exchanges the code (and is recorded then).
                    write.session = nil
                    write.audit.removeAll { $0.action == .login }
                    write.flow = FlowStateRecord(
                        id: records.random.uuid(), authCodeHash: flow.authCodeHash, userID: signedIn.id, challenge: flow.challenge,
                        authenticationMethod: "oauth", createdAt: session.createdAt,
                        expiresAt: session.createdAt.addingTimeInterval(flow.lifetime))
                }
                try await store.applyExternalSignIn(write)
                if !write.outbox.isEmpty { records.notices.notify() }
                guard let session = write.session else { return nil }
                return try await records.answers.answer(user: signedIn, session: session)
            } catch let error as StoreError where (error.isConflict || error.isDuplicate) && tries < 4 {
                tries += 1
            } catch let error as StoreError where error.isConflict || error.isDuplicate {
                throw AuthError(.conflict, "The account changed while signing in; try again")
            }
        }
    }

    /// What this sign-in writes, from the identity and the address as stored now, and the user
    /// as it will be. An ``ExternalSignInWrite/UserWrite/update(_:)`` carries the user changed
    /// but still at the version it was read at: the store's precondition.
    func decide(
        _ external: ProviderUser, provider: IdentityProvider, data: [String: JSONValue], client: ClientInfo, method: String = "oauth"
    ) async throws -> (ExternalSignInWrite, UserRecord) {
        let now = records.time.now()
        let vouched = external.email != nil && (external.emailVerified || settings.mailerAutoconfirm)
        let details: [String: JSONValue] = ["method": .string(method == "oauth" ? "id_token" : method), "provider": .string(provider.name)]
        if let (identity, user) = try await store.identity(provider: provider.name, providerID: external.subject) {
            try Self.refuseIfIssuerChanged(identity, external, provider: provider)
            try await refuseIfBanned(user, provider: provider, client: client)
            var updated = user
            if updated.email != nil, !updated.isEmailConfirmed {
                if vouched, updated.email == external.email {
                    updated.emailConfirmedAt = now
                    updated.userMetadata["email_verified"] = true
                } else if !settings.allowUnverifiedEmailSignIns {
                    throw Self.needsVerification(provider)
                }
            }
            updated.signedIn(with: external.identityData, provider: provider.name, at: now)
            var refreshed = identity
            refreshed.identityData = external.identityData
            refreshed.email = external.email
            refreshed.lastSignInAt = now
            refreshed.updatedAt = now
            let session = records.answers.newSession(for: updated, method: method, client: client, now: now)
            let audit = [records.events.event(.login, user: updated, details: details, client: client)]
            return (ExternalSignInWrite(user: .update(updated), identity: .update(refreshed), session: session, audit: audit), updated)
        }
        guard external.email != nil || provider.emailOptional else { throw Self.needsVerification(provider) }
        guard external.email == nil || vouched || settings.allowUnverifiedEmailSignIns else { throw Self.needsVerification(provider) }
        let owner = try await external.email.asyncMap { try await store.user(email: $0) } ?? nil
        let linksByEmail = !provider.name.hasPrefix("custom:") || settings.customLinkByEmail
        if let owner, vouched, linksByEmail, owner.isEmailConfirmed {
            // The provider vouches for the address and its owner proved it: the same person. A
            // new way into the account, so the owner is told.
            try await refuseIfBanned(owner, provider: provider, client: client)
            var linked = owner
            linked.signedIn(with: external.identityData.merging(data) { _, given in given }, provider: provider.name, at: now)
            let identity = newIdentity(external, provider: provider, userID: owner.id, now: now)
            let session = records.answers.newSession(for: linked, method: method, client: client, now: now)
            let audit = [
                records.events.event(.identityLinked, user: linked, details: Self.linked(identity), client: client),
                records.events.event(.login, user: linked, details: details, client: client),
            ]
            let notice = try records.notices.notice(.identityLinked, to: linked, provider: provider.name)
            return (
                ExternalSignInWrite(user: .update(linked), identity: .insert(identity), session: session, audit: audit, outbox: notice),
                linked
            )
        }
        guard !settings.disableSignup else { throw AuthError.signupDisabled }
        // An address another account holds (unconfirmed, or not vouched for here) stays with it:
        // the new user has none, and the identity keeps the provider's.
        let email = owner == nil ? external.email : nil
        let id = records.random.uuid()
        var metadata = external.identityData.merging(data) { _, given in given }
        metadata["email_verified"] = .bool(email != nil && vouched)
        let user = UserRecord(
            id: id, aud: settings.audience, role: "authenticated", email: email, passwordHash: nil,
            emailConfirmedAt: email != nil && vouched ? now : nil, lastSignInAt: now,
            appMetadata: ["provider": .string(provider.name), "providers": [.string(provider.name)]], userMetadata: metadata,
            createdAt: now, updatedAt: now)
        let identity = newIdentity(external, provider: provider, userID: id, now: now)
        try await records.hooks.beforeUserCreated(user, identities: [identity])
        let session = records.answers.newSession(for: user, method: method, client: client, now: now)
        let audit = [records.events.event(.userSignedUp, user: user, details: details, client: client)]
        return (ExternalSignInWrite(user: .insert(user), identity: .insert(identity), session: session, audit: audit), user)
    }

    func newIdentity(_ external: ProviderUser, provider: IdentityProvider, userID: UUID, now: Date) -> IdentityRecord {
        IdentityRecord(
            id: records.random.uuid(), userID: userID, provider: provider.name, providerID: external.subject,
            identityData: external.identityData, email: external.email, lastSignInAt: now, createdAt: now, updatedAt: now)
    }

    /// `identity_linked`'s details, as GoTrue's traits.
    static func linked(_ identity: IdentityRecord) -> [String: JSONValue] {
        [
            "identity_id": .string(identity.id.lowercasedString), "provider": .string(identity.provider),
            "provider_id": .string(identity.providerID),
        ]
    }

    func refuseIfBanned(_ user: UserRecord, provider: IdentityProvider, client: ClientInfo) async throws {
        guard user.isBanned(at: records.time.now()) else { return }
        try await store.appendAudit([
            records.events.event(
                .loginFailed, user: user,
                details: ["method": "id_token", "provider": .string(provider.name), "reason": "user_banned"], client: client)
        ])
        throw AuthError.userBanned
    }

    /// The provider does not vouch for the address (or gave none): GoTrue's 422.
    static func needsVerification(_ provider: IdentityProvider) -> AuthError {
        AuthError(
            .providerEmailNeedsVerification,
            "Unverified email with \(provider.name). Verify the email with \(provider.name) in order to sign in")
    }
}

extension UserRecord {
    /// The user after a sign-in with `provider`'s identity at `now`: the identity's data merged
    /// into the metadata, the provider listed, the last sign-in moved on.
    mutating func signedIn(with identityData: [String: JSONValue], provider: String, at now: Date) {
        userMetadata.merge(identityData) { _, new in new }
        addProvider(provider)
        if appMetadata["provider"] == nil { appMetadata["provider"] = .string(provider) }
        lastSignInAt = now
        updatedAt = now
    }
}

extension Optional {
    fileprivate func asyncMap<U>(_ transform: (Wrapped) async throws -> U) async rethrows -> U? {
        guard let self else { return nil }
        return try await transform(self)
    }
}

extension IDTokenSignIn {
    /// A custom provider's identities are the issuer's and the subject's together: a subject is
    /// unique only within its issuer, so after an operator points the provider at another issuer,
    /// that issuer's user with the same `sub` must not get the account the old issuer's user made.
    /// (Built-in providers keep their issuers; Google's two spellings are one issuer.)
    static func refuseIfIssuerChanged(_ identity: IdentityRecord, _ external: ProviderUser, provider: IdentityProvider) throws {
        guard provider.name.hasPrefix("custom:"), let stored = identity.identityData["iss"]?.stringValue,
            let presented = external.identityData["iss"]?.stringValue, stored != presented
        else { return }
        throw AuthError(
            .identityAlreadyExists, "This identity was made by another issuer of \(provider.name): sign in another way and link it again")
    }
}
