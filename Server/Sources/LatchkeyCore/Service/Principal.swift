import Foundation

/// Who a request's bearer token speaks for.
public struct Principal: Sendable {
    /// The verified claims.
    public var claims: AccessTokenClaims
    /// The user named by `sub`.
    public var user: UserRecord
    /// The session named by `session_id`, when the token has one.
    public var session: SessionRecord?
    /// Whether the token's role is an admin role.
    public var isAdmin: Bool
    /// The user's identities and factors, read with the user (what `GET /user` answers).
    public var identities: [IdentityRecord] = []
    public var factors: [FactorRecord] = []
}
