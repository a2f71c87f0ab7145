import Foundation
import LatchkeyAPI

/// What the consent page learns when it opens a request: the request to show, or, when the
/// user's earlier consent covers it, where the browser goes straight away.
public enum OAuthAuthorizationView: Sendable, Equatable {
    case details(OAuthAuthorizationDetails)
    case approved(OAuthConsentResponse)
}

extension OAuthServer {
    /// `GET /oauth/authorizations/{authorization_id}`: the first signed-in user to open a pending
    /// request becomes its user (no one else sees it: `404`); when their consent for the client
    /// covers its scopes, it is approved at once (GoTrue's auto-approval).
    public func authorization(id: String, principal: Principal, origin: String?) async throws -> OAuthAuthorizationView {
        try requireEnabled()
        try checkOrigin(origin)
        var authorization = try await pending(id, for: principal)
        let user = principal.user
        if authorization.userID == nil {
            let claimed = authorization
            authorization.userID = user.id
            let consent = try await store.oauthConsent(userID: user.id, clientID: authorization.clientID)
            if consent?.covers(authorization.scopes) == true {
                let (approved, code) = approve(authorization, principal: principal)
                guard try await store.updateOAuthAuthorization(approved, ifPendingFor: nil, consent: nil, audit: []) else {
                    throw Self.noLongerPending
                }
                return .approved(OAuthConsentResponse(redirectURL: success(approved, code: code)))
            }
            guard try await store.updateOAuthAuthorization(authorization, ifPendingFor: claimed.userID, consent: nil, audit: []) else {
                throw Self.noLongerPending
            }
        }
        let client = try await store.oauthClient(id: authorization.clientID)
        guard let client else { throw Self.notFound() }
        return .details(
            OAuthAuthorizationDetails(
                authorizationID: authorization.authorizationID, redirectURI: authorization.redirectURI, client: Self.summary(client),
                user: OAuthAuthorizationUser(id: user.id.lowercasedString, email: user.email ?? ""), scope: authorization.scope))
    }

    /// `POST /oauth/authorizations/{authorization_id}/consent`: the user's answer to a request
    /// they opened. Approval remembers the scopes for the client (added to what it had) and
    /// answers the redirect with a single-use code; denial the redirect with `access_denied`.
    public func consent(id: String, _ request: OAuthConsentRequest, principal: Principal, origin: String?) async throws
        -> OAuthConsentResponse
    {
        try requireEnabled()
        try checkOrigin(origin)
        guard request.action == "approve" || request.action == "deny" else {
            throw AuthError.validation("action must be 'approve' or 'deny'")
        }
        let authorization = try await pending(id, for: principal)
        guard authorization.userID == principal.user.id else { throw Self.notFound() }
        if request.action == "deny" {
            var denied = authorization
            denied.status = .denied
            guard try await store.updateOAuthAuthorization(denied, ifPendingFor: principal.user.id, consent: nil, audit: []) else {
                throw Self.noLongerPending
            }
            return OAuthConsentResponse(
                redirectURL: Self.redirect(
                    authorization.redirectURI,
                    [("error", "access_denied"), ("error_description", "User denied the request"), ("state", authorization.state)]))
        }
        let (approved, code) = approve(authorization, principal: principal)
        let now = time.now()
        let earlier = try await store.oauthConsent(userID: principal.user.id, clientID: authorization.clientID)
        var scopes = earlier?.revokedAt == nil ? earlier?.scopes ?? [] : []
        scopes += authorization.scopes.filter { !scopes.contains($0) }
        let consent = OAuthConsentRecord(
            id: earlier?.id ?? answers.random.uuid(), userID: principal.user.id, clientID: authorization.clientID, scopes: scopes,
            grantedAt: now)
        let granted = events.event(
            .oauthConsentGranted, user: principal.user,
            details: ["client_id": .string(authorization.clientID.lowercasedString), "scopes": .string(authorization.scope)])
        guard try await store.updateOAuthAuthorization(approved, ifPendingFor: principal.user.id, consent: consent, audit: [granted])
        else { throw Self.noLongerPending }
        return OAuthConsentResponse(redirectURL: success(approved, code: code))
    }

    static let noLongerPending = AuthError.validation("authorization request is no longer pending")

    /// Whether `id` has the shape of an authorization id: 32 ASCII letters and digits.
    public static func isAuthorizationID(_ id: String) -> Bool {
        id.utf8.count == 32 && id.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }
    }

    /// The pending request `id`, not expired, not another user's (`404` for all three but a
    /// request that was answered: `400`, as GoTrue).
    func pending(_ id: String, for principal: Principal) async throws -> OAuthAuthorizationRecord {
        guard Self.isAuthorizationID(id), let authorization = try await store.oauthAuthorization(id: id) else { throw Self.notFound() }
        if let owner = authorization.userID, owner != principal.user.id { throw Self.notFound() }
        if authorization.expiresAt <= time.now() {
            if authorization.status == .pending {
                var expired = authorization
                expired.status = .expired
                _ = try await store.updateOAuthAuthorization(expired, ifPendingFor: authorization.userID, consent: nil, audit: [])
            }
            throw Self.notFound()
        }
        guard authorization.status == .pending else { throw AuthError.validation("authorization request cannot be processed") }
        return authorization
    }

    /// The request approved by the principal's session, with its new code (returned once; the
    /// request keeps its hash).
    func approve(_ authorization: OAuthAuthorizationRecord, principal: Principal) -> (OAuthAuthorizationRecord, String) {
        let code = Base64URL.encode(answers.random.bytes(32))
        var approved = authorization
        approved.userID = principal.user.id
        approved.status = .approved
        approved.codeHash = OneTimeSecrets.linkHash(code)
        approved.approvedAt = time.now()
        approved.aal = principal.session?.aal ?? "aal1"
        approved.amr = principal.session?.amr ?? []
        return (approved, code)
    }

    func success(_ authorization: OAuthAuthorizationRecord, code: String) -> String {
        Self.redirect(authorization.redirectURI, [("code", code), ("state", authorization.state)])
    }

    /// A browser's request comes from the app (the site URL or the redirect allow list), as
    /// GoTrue checks; one without `Origin` (a server, a native app) passes.
    func checkOrigin(_ origin: String?) throws {
        guard let origin, !origin.isEmpty else { return }
        guard redirects.isAllowed(origin) else { throw AuthError.validation("unauthorized request origin") }
    }

    static func summary(_ client: OAuthClientRecord) -> OAuthClientSummary {
        OAuthClientSummary(
            id: client.id.lowercasedString, name: client.name ?? "", uri: client.uri ?? "", logoURI: client.logoURI ?? "")
    }
}
