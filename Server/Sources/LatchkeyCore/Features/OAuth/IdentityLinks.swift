import Foundation
import LatchkeyAPI

/// A signed-in user's own identities, as GoTrue's manual linking: `GET /user/identities/authorize`
/// starts the redirect flow to link a provider, `DELETE /user/identities/{id}` unlinks one (never
/// the last). Both are off unless `GOTRUE_SECURITY_MANUAL_LINKING_ENABLED`, and both change the
/// ways into the account, so a user with a verified factor needs an `aal2` session for them
/// (``SecondFactorGate``); the owner is told by email either way.
public struct IdentityLinks: Sendable {
    let store: any ExternalIdentityStore
    let flows: OAuthRedirects
    let enabled: Bool
    let records: Records

    public init(store: any ExternalIdentityStore, flows: OAuthRedirects, enabled: Bool, records: Records) {
        self.store = store
        self.flows = flows
        self.enabled = enabled
        self.records = records
    }

    static var disabled: AuthError {
        AuthError(.manualLinkingDisabled, "Manual linking is disabled")
    }

    /// Where the browser goes to link a provider to `principal`'s user: Latchkey's own
    /// ``OAuthRedirects/continueLink(ticket:binding:)`` with a short, single-use ticket, which binds
    /// the flow to the browser that opens it and sends it on to the provider. The state carries the
    /// session, which the callback requires to still exist (at `aal2` for a user with a factor).
    public func authorize(provider: String?, redirectTo: String?, scopes: String?, principal: Principal) async throws -> String {
        guard enabled else { throw Self.disabled }
        guard let session = LinkingSession(principal) else { throw AuthError.sessionNotFound }
        try SecondFactorGate.check(principal.session, factors: principal.factors, to: "link an identity")
        return try await flows.linkTicketURL(provider: provider, redirectTo: redirectTo, scopes: scopes, linking: session)
    }

    /// Unlinks the user's identity `id`: its provider leaves `app_metadata.providers`; the address
    /// stays. The last identity is kept.
    public func unlink(_ id: String, principal: Principal, client: ClientInfo) async throws {
        guard enabled else { throw Self.disabled }
        guard let identityID = UUID(text: id) else { throw AuthError(.identityNotFound, "Identity doesn't exist") }
        try await store.onFreshCopies(of: principal.user) { user in
            // Decided on every try: a sign-out or a first factor landing meanwhile is seen here.
            let held = try await heldSession(principal)
            let identities = try await store.identities(userID: user.id)
            guard let identity = identities.first(where: { $0.id == identityID }) else {
                throw AuthError(.identityNotFound, "Identity doesn't exist")
            }
            let remaining = identities.filter { $0.id != identityID }
            guard !remaining.isEmpty else {
                throw AuthError(.singleIdentityNotDeletable, "User must have at least 1 identity after unlinking")
            }
            var updated = user
            var providers: [JSONValue] = []
            for provider in remaining.map(\.provider) where !providers.contains(.string(provider)) { providers.append(.string(provider)) }
            updated.appMetadata["providers"] = .array(providers)
            updated.appMetadata["provider"] = providers.first
            updated.updatedAt = records.time.now()
            let event = records.events.event(
                .identityUnlinked, user: updated, details: IDTokenSignIn.linked(identity), client: client)
            let notice = try records.notices.notice(.identityUnlinked, to: updated, provider: identity.provider)
            // Another request unlinked or linked meanwhile, or the session ended: read again and
            // decide again.
            guard
                try await store.unlinkIdentity(
                    id: identityID, user: updated, held: held, audit: [event], outbox: notice)
            else {
                throw StoreError.conflict("identities of \(user.id) changed")
            }
        }
        records.notices.notify()
    }

    /// The session `principal` acts under, read again: `session_not_found` when it ended, the
    /// second-factor refusal when it may not change the ways in. `nil` for an operator.
    func heldSession(_ principal: Principal) async throws -> SessionRecord? {
        if principal.isAdmin { return nil }
        guard let session = principal.session else { throw AuthError.sessionNotFound }
        let account = try await store.account(userID: principal.user.id, sessionID: session.id)
        guard let held = account.session, held.userID == principal.user.id else { throw AuthError.sessionNotFound }
        try SecondFactorGate.check(held, factors: account.factors, to: "unlink an identity")
        return held
    }
}
