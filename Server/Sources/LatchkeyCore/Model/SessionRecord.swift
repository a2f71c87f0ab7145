import Foundation

/// One entry of a session's `amr` claim: how and when the user proved who they are.
public struct AuthenticationMethod: Codable, Sendable, Equatable {
    public var method: String
    public var timestamp: Int

    public init(method: String, timestamp: Int) {
        self.method = method
        self.timestamp = timestamp
    }
}

/// A signed-in session and the state of its refresh-token chain.
///
/// Refresh tokens are not stored: the current one is derived from `refreshCounter` and a key
/// made from the server secret and `refreshSalt` (see ``RefreshTokenCodec``).
public struct SessionRecord: Sendable, Equatable {
    public var id: UUID
    public var userID: UUID
    public var aal: String
    public var amr: [AuthenticationMethod]
    /// The counter of the refresh token currently valid.
    public var refreshCounter: Int64
    /// Random bytes that, with the server secret, key this session's refresh tokens.
    public var refreshSalt: [UInt8]
    /// When the counter last moved.
    public var refreshedAt: Date?
    public var userAgent: String?
    public var ip: String?
    public var createdAt: Date
    public var updatedAt: Date
    /// The OAuth client this session was issued to (#40), `nil` for the app's own sessions: its
    /// tokens carry `client_id` and `scope`, refresh only at `/oauth/token` with that client's
    /// credentials, and open only the routes a client's token may use.
    public var oauthClientID: UUID?
    /// The scopes granted to the client, separated by spaces.
    public var scopes: String?
    /// The resource (RFC 8707) the client's tokens are for: their `aud` beside the usual one.
    public var resource: String?

    public init(
        id: UUID, userID: UUID, aal: String = "aal1", amr: [AuthenticationMethod], refreshCounter: Int64 = 0,
        refreshSalt: [UInt8], refreshedAt: Date? = nil, userAgent: String? = nil, ip: String? = nil, createdAt: Date,
        updatedAt: Date, oauthClientID: UUID? = nil, scopes: String? = nil, resource: String? = nil
    ) {
        self.id = id
        self.userID = userID
        self.aal = aal
        self.amr = amr
        self.refreshCounter = refreshCounter
        self.refreshSalt = refreshSalt
        self.refreshedAt = refreshedAt
        self.userAgent = userAgent
        self.ip = ip
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.oauthClientID = oauthClientID
        self.scopes = scopes
        self.resource = resource
    }
}

/// A message the development mailbox captured.
public struct StoredEmail: Sendable, Equatable {
    public var id: UUID
    public var message: EmailMessage
    public var createdAt: Date

    public init(id: UUID, message: EmailMessage, createdAt: Date) {
        self.id = id
        self.message = message
        self.createdAt = createdAt
    }
}
