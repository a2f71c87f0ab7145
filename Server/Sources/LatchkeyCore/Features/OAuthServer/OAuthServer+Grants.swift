import Foundation
import LatchkeyAPI

extension OAuthServer {
    /// `GET|POST /oauth/userinfo`: the claims the token's scopes open (OpenID Connect §5.3); a
    /// token of the app's own session gets the subject alone, as GoTrue answers it.
    public func userInfo(principal: Principal) throws -> [String: JSONValue] {
        try requireEnabled()
        let scopes = principal.session?.oauthClientID == nil ? nil : OAuthScopes.parse(principal.session?.scopes ?? "")
        return OAuthScopes.userInfo(principal.user, scopes: scopes)
    }

    /// `GET /user/oauth/grants`: the clients the user granted scopes to and has not revoked.
    public func grants(principal: Principal) async throws -> [OAuthGrant] {
        try await grants(userID: principal.user.id)
    }

    /// The grants of the user `userID` (the operator's console reads them too).
    public func grants(userID: UUID) async throws -> [OAuthGrant] {
        try requireEnabled()
        var grants: [OAuthGrant] = []
        for consent in try await store.oauthConsents(userID: userID) {
            guard let client = try await store.oauthClient(id: consent.clientID) else { continue }
            grants.append(OAuthGrant(client: Self.summary(client), scopes: consent.scopes, grantedAt: consent.grantedAt))
        }
        return grants
    }

    /// `DELETE /user/oauth/grants?client_id=`: the grant revoked and, in the same write, the
    /// client's sessions of the user ended (their refresh tokens stop at once, their access
    /// tokens at the next request) and its codes not yet spent voided.
    public func revokeGrant(clientID raw: String?, principal: Principal) async throws {
        try await revokeGrant(clientID: raw, of: principal.user)
    }

    /// Revokes the grant of the user `userID` (the operator's console: the event names the
    /// operator as actor).
    public func revokeGrant(clientID raw: String?, userID: UUID) async throws {
        guard let user = try await store.user(id: userID) else { throw AuthError.adminUserNotFound }
        try await revokeGrant(clientID: raw, of: user)
    }

    func revokeGrant(clientID raw: String?, of user: UserRecord) async throws {
        try requireEnabled()
        guard let raw, !raw.isEmpty else { throw AuthError.validation("client_id query parameter is required") }
        guard let clientID = UUID(text: raw) else { throw AuthError.validation("invalid client_id format") }
        let revoked = events.event(.oauthConsentRevoked, user: user, details: ["client_id": .string(clientID.lowercasedString)])
        guard try await store.revokeOAuthConsent(userID: user.id, clientID: clientID, at: time.now(), audit: [revoked]) else {
            var error = AuthError(.oauthConsentNotFound, "No active grant found for this client")
            error.status = 404
            throw error
        }
    }
}
