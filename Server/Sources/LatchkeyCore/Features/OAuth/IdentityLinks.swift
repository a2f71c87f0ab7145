import Foundation
import LatchkeyAPI

/// A signed-in user's own identities, as GoTrue's manual linking: `GET /user/identities/authorize`
/// starts the redirect flow to link a provider, `DELETE /user/identities/{id}` unlinks one (never
/// the last). Both are off unless `GOTRUE_SECURITY_MANUAL_LINKING_ENABLED`.
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

    /// The provider's URL for linking it to `principal`'s user.
    public func authorize(provider: String?, redirectTo: String?, scopes: String?, principal: Principal) async throws -> String {
        guard enabled else { throw Self.disabled }
        return try await flows.authorize(
            provider: provider, redirectTo: redirectTo, scopes: scopes, codeChallenge: nil, codeChallengeMethod: nil,
            linking: principal.user.id)
    }

    /// Unlinks the user's identity `id`: its provider leaves `app_metadata.providers`; the address
    /// stays. The last identity is kept.
    public func unlink(_ id: String, principal: Principal, client: ClientInfo) async throws {
        guard enabled else { throw Self.disabled }
        guard let identityID = UUID(uuidString: id) else { throw AuthError(.identityNotFound, "Identity doesn't exist") }
        try await store.onFreshCopies(of: principal.user) { user in
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
            // Another request unlinked or linked meanwhile: read again and decide again.
            guard try await store.unlinkIdentity(id: identityID, user: updated, audit: [event]) else {
                throw StoreError.conflict("identities of \(user.id) changed")
            }
        }
    }
}
