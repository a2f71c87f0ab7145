import Foundation

/// A client's request to act for a user, from `GET /oauth/authorize` until its code is spent
/// (GoTrue's `oauth_authorizations`). It names no user until a signed-in user opens it on the
/// consent page; approved, it holds the code's hash (never the code) and what the user proved
/// (`aal`, `amr`) for the tokens and the `id_token`; spent, the session it made, so that the code
/// presented again ends that session (RFC 6749 §4.1.2).
public struct OAuthAuthorizationRecord: Sendable, Equatable {
    public enum Status: String, Sendable {
        case pending, approved, denied, expired
        /// The code was exchanged for tokens.
        case used
    }

    public var id: UUID
    /// The id the consent page is opened with: 32 random letters and digits.
    public var authorizationID: String
    public var clientID: UUID
    public var userID: UUID?
    public var redirectURI: String
    /// The scopes asked for, separated by single spaces.
    public var scope: String
    public var state: String?
    /// RFC 8707's resource indicator.
    public var resource: String?
    public var challenge: PKCEChallenge
    /// OpenID's `nonce`, for the `id_token`.
    public var nonce: String?
    public var status: Status
    /// Hex SHA-256 of the authorization code, once approved.
    public var codeHash: String?
    /// The assurance level and methods of the user's session that approved.
    public var aal: String?
    public var amr: [AuthenticationMethod]
    /// The session the code was exchanged for.
    public var sessionID: UUID?
    public var createdAt: Date
    public var expiresAt: Date
    public var approvedAt: Date?

    public init(
        id: UUID, authorizationID: String, clientID: UUID, userID: UUID? = nil, redirectURI: String, scope: String, state: String?,
        resource: String?, challenge: PKCEChallenge, nonce: String?, status: Status = .pending, codeHash: String? = nil,
        aal: String? = nil, amr: [AuthenticationMethod] = [], sessionID: UUID? = nil, createdAt: Date, expiresAt: Date,
        approvedAt: Date? = nil
    ) {
        self.id = id
        self.authorizationID = authorizationID
        self.clientID = clientID
        self.userID = userID
        self.redirectURI = redirectURI
        self.scope = scope
        self.state = state
        self.resource = resource
        self.challenge = challenge
        self.nonce = nonce
        self.status = status
        self.codeHash = codeHash
        self.aal = aal
        self.amr = amr
        self.sessionID = sessionID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.approvedAt = approvedAt
    }

    /// The scopes asked for, one by one.
    public var scopes: [String] { OAuthScopes.parse(scope) }
}

/// What a user granted a client (GoTrue's `oauth_consents`): one per user and client, its scopes
/// growing with each approval, remembered until the user revokes it.
public struct OAuthConsentRecord: Sendable, Equatable {
    public var id: UUID
    public var userID: UUID
    public var clientID: UUID
    public var scopes: [String]
    public var grantedAt: Date
    public var revokedAt: Date?

    public init(id: UUID, userID: UUID, clientID: UUID, scopes: [String], grantedAt: Date, revokedAt: Date? = nil) {
        self.id = id
        self.userID = userID
        self.clientID = clientID
        self.scopes = scopes
        self.grantedAt = grantedAt
        self.revokedAt = revokedAt
    }

    /// Whether the consent, not revoked, covers every scope of `requested`.
    public func covers(_ requested: [String]) -> Bool {
        revokedAt == nil && Set(requested).isSubset(of: scopes)
    }
}

/// What a code's redemption decides, on the authorization and user read in its transaction
/// (``OAuthAuthorizationStore/redeemOAuthCode(codeHash:decide:)``).
public enum OAuthCodeRedemption: Sendable, Equatable {
    /// Mark the authorization `used` (with the session's id) while it is still `approved`, store
    /// the session and the events.
    case issue(OAuthAuthorizationRecord, SessionRecord, audit: [AuditEvent])
    /// A spent code presented again: end the session it made, record the events, refuse.
    case revoke(sessionID: UUID?, audit: [AuditEvent], AuthError)
    /// Refuse and write nothing.
    case refuse(AuthError)
}
