import Foundation
import LatchkeyAPI

/// Who a request is: verifies the `Authorization` header's access token and loads the user and
/// session it names, in one read. Every authenticated route starts here.
///
/// Answers as GoTrue: no header is `401 no_authorization`; a token that does not verify, or is
/// not for this audience and issuer, is `403 bad_jwt`; a signed-out session is `403
/// session_not_found`; a banned user `403 user_banned`.
public struct Authenticator: Sendable {
    let issuer: any TokenIssuing
    let jwt: JWTSettings
    /// The `iss` a user's token must carry.
    let issuerClaim: String
    let accounts: any AccountReading
    let time: any TimeSource

    public init(issuer: any TokenIssuing, jwt: JWTSettings, issuerClaim: String, accounts: any AccountReading, time: any TimeSource) {
        self.issuer = issuer
        self.jwt = jwt
        self.issuerClaim = issuerClaim
        self.accounts = accounts
        self.time = time
    }

    /// The authenticator for the tokens `answers` issues.
    public init(answers: SessionAnswers, accounts: any AccountReading, time: any TimeSource) {
        self.init(issuer: answers.issuer, jwt: answers.jwt, issuerClaim: answers.issuerClaim, accounts: accounts, time: time)
    }

    /// The principal of a user's token (or an admin token naming a user). A token of an OAuth
    /// client's session (#40) is refused (`403 insufficient_scope`) unless `allowingClients`: a
    /// third party holding a user's token reads what its scopes open (`/oauth/userinfo`, `GET
    /// /user`) and may sign out, never change the account. The session decides, not the token's
    /// claims (which a custom access token hook may rewrite).
    public func authenticate(authorization: String?, allowingClients: Bool = false) async throws -> Principal {
        let claims = try await bearerClaims(authorization)
        let isAdmin = isOperator(claims)
        if !isAdmin {
            // A user's token is one this server issued, for this audience, and it expires.
            if claims.aud != jwt.audience { throw AuthError.badJWT("unexpected audience") }
            guard claims.exp != nil else { throw AuthError.badJWT("invalid claim: missing exp claim") }
            guard claims.iss == issuerClaim else { throw AuthError.badJWT("invalid claim: unexpected issuer") }
        }
        guard let sub = claims.sub, let userID = UUID(text: sub) else {
            throw AuthError.badJWT("invalid claim: missing sub claim")
        }
        var sessionID: UUID?
        if let claimed = claims.sessionID {
            guard let id = UUID(text: claimed) else { throw AuthError.sessionNotFound }
            sessionID = id
        } else if !isAdmin {
            throw AuthError.badJWT("invalid claim: missing session_id claim")
        }
        // One read: the user, the session, the identities and factors, from one snapshot.
        let account = try await accounts.account(userID: userID, sessionID: sessionID)
        if sessionID != nil {
            guard let found = account.session, found.userID == userID else { throw AuthError.sessionNotFound }
        }
        guard let user = account.user else { throw AuthError.userNotFound }
        if user.isBanned(at: time.now()) { throw AuthError.userBanned }
        if account.session?.oauthClientID != nil, !allowingClients {
            var refusal = AuthError(.insufficientScope, "This token was issued to an OAuth client and may not be used here")
            refusal.status = 403
            throw refusal
        }
        RequestFacts.current?.userID = user.id
        return Principal(
            claims: claims, user: user, session: account.session, isAdmin: isAdmin, identities: account.identities,
            factors: account.factors)
    }

    /// Verifies an admin (service-role) token: a valid signature and a `role` among the admin
    /// roles, else `403 not_admin`. Like GoTrue, it needs no `sub`, `exp`-bound session or `aud`.
    /// Returns the role, which the audit log names as the actor.
    @discardableResult
    public func authenticateAdmin(authorization: String?) async throws -> String {
        let claims = try await bearerClaims(authorization)
        guard isOperator(claims), let role = claims.role else { throw AuthError.notAdmin }
        return role
    }

    /// Whether `claims` are an operator's: a `role` among the admin roles, in a token that names
    /// no user session. A token issued for a user's session is a user's token whatever its role
    /// says (a hook, or a bug, that put an operator role in it does not make an operator).
    func isOperator(_ claims: AccessTokenClaims) -> Bool {
        guard let role = claims.role, jwt.adminRoles.contains(role) else { return false }
        return claims.sessionID == nil
    }

    /// The verified claims of a `Bearer` token: no header is `401 no_authorization`, a token
    /// that does not verify `403 bad_jwt`.
    func bearerClaims(_ authorization: String?) async throws -> AccessTokenClaims {
        guard let authorization, authorization.utf8.count <= 16_384 else { throw AuthError.noAuthorization }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer", !parts[1].isEmpty else {
            throw AuthError.noAuthorization
        }
        guard let claims = await issuer.verify(String(parts[1])) else {
            throw AuthError.badJWT("token is invalid or expired")
        }
        return claims
    }
}
