import Foundation
import Synchronization

extension InMemoryStore: OAuthAuthorizationStore {
    public func insertOAuthAuthorization(_ authorization: OAuthAuthorizationRecord) async throws {
        try state.withLock { state in
            guard state.oauthAuthorizations[authorization.id] == nil,
                !state.oauthAuthorizations.values.contains(where: { $0.authorizationID == authorization.authorizationID })
            else { throw StoreError.duplicate("oauth_authorizations_authorization_id_key") }
            state.oauthAuthorizations[authorization.id] = authorization
        }
    }

    public func oauthAuthorization(id authorizationID: String) async throws -> OAuthAuthorizationRecord? {
        state.withLock { $0.oauthAuthorizations.values.first { $0.authorizationID == authorizationID } }
    }

    public func updateOAuthAuthorization(
        _ next: OAuthAuthorizationRecord, ifPendingFor userID: UUID?, consent: OAuthConsentRecord?, audit: [AuditEvent]
    ) async throws -> Bool {
        state.withLock { state in
            guard let stored = state.oauthAuthorizations[next.id], stored.status == .pending, stored.userID == userID else { return false }
            state.oauthAuthorizations[next.id] = next
            if let consent {
                state.oauthConsents.removeAll { $0.userID == consent.userID && $0.clientID == consent.clientID }
                state.oauthConsents.append(consent)
            }
            state.events += audit
            return true
        }
    }

    public func redeemOAuthCode(
        codeHash: String, decide: @escaping @Sendable (OAuthAuthorizationRecord?, UserRecord?) -> OAuthCodeRedemption
    ) async throws -> (OAuthCodeRedemption, UserRecord?)? {
        state.withLock { state in
            let authorization = state.oauthAuthorizations.values.first { $0.codeHash == codeHash }
            let user = authorization?.userID.flatMap { state.users[$0] }
            let decision = decide(authorization, user)
            switch decision {
            case .issue(let used, let session, let audit):
                guard state.oauthAuthorizations[used.id]?.status == .approved else { return nil }
                state.oauthAuthorizations[used.id] = used
                state.sessions[session.id] = session
                state.events += audit
            case .revoke(let sessionID, let audit, _):
                if let sessionID { state.sessions[sessionID] = nil }
                state.events += audit
            case .refuse:
                break
            }
            return (decision, user)
        }
    }

    public func oauthConsent(userID: UUID, clientID: UUID) async throws -> OAuthConsentRecord? {
        state.withLock { $0.oauthConsents.first { $0.userID == userID && $0.clientID == clientID } }
    }

    public func oauthConsents(userID: UUID) async throws -> [OAuthConsentRecord] {
        state.withLock { state in
            state.oauthConsents.filter { $0.userID == userID && $0.revokedAt == nil && state.deletedOAuthClients[$0.clientID] == nil }
                .sorted { ($0.grantedAt, $0.id.uuidString) > ($1.grantedAt, $1.id.uuidString) }
        }
    }

    public func revokeOAuthConsent(userID: UUID, clientID: UUID, at date: Date, audit: [AuditEvent]) async throws -> Bool {
        state.withLock { state in
            guard
                let index = state.oauthConsents.firstIndex(where: { $0.userID == userID && $0.clientID == clientID && $0.revokedAt == nil })
            else { return false }
            state.oauthConsents[index].revokedAt = date
            state.endOAuthGrants(clientID: clientID, userID: userID)
            state.events += audit
            return true
        }
    }
}

extension InMemoryStore.State {
    /// Ends a client's sessions and voids its requests not yet spent: of one user, or of all.
    mutating func endOAuthGrants(clientID: UUID, userID: UUID?) {
        sessions = sessions.filter { $0.value.oauthClientID != clientID || (userID != nil && $0.value.userID != userID) }
        for (id, authorization) in oauthAuthorizations
        where authorization.clientID == clientID && (userID == nil || authorization.userID == userID)
            && [.pending, .approved].contains(authorization.status)
        {
            oauthAuthorizations[id]?.status = .denied
        }
    }
}
