import Foundation

/// A signed-in session: GoTrue's `AccessTokenResponse`.
public struct Session: Codable, Sendable, Equatable {
    /// The JWT to send as `Authorization: Bearer …`.
    public var accessToken: String
    /// Always `"bearer"`.
    public var tokenType: String
    /// Seconds until the access token expires, counted when it was issued.
    public var expiresIn: Int
    /// When the access token expires, in Unix seconds.
    public var expiresAt: Int
    /// The opaque token that obtains the next session.
    public var refreshToken: String
    /// The signed-in user.
    public var user: User
    /// Set when the password used to sign in no longer meets the policy.
    public var weakPassword: WeakPassword?
    /// Latchkey: ten single-use recovery codes, only in the answer that verified the user's first
    /// second factor (when they had none left). Show them once; the SDK never stores them.
    public var recoveryCodes: [String]?

    /// Creates a session; `tokenType` defaults to `bearer`.
    public init(
        accessToken: String, tokenType: String = "bearer", expiresIn: Int, expiresAt: Int, refreshToken: String,
        user: User, weakPassword: WeakPassword? = nil
    ) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.expiresAt = expiresAt
        self.refreshToken = refreshToken
        self.user = user
        self.weakPassword = weakPassword
    }

    enum CodingKeys: String, CodingKey {
        case user
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
        case expiresAt = "expires_at"
        case refreshToken = "refresh_token"
        case weakPassword = "weak_password"
        case recoveryCodes = "recovery_codes"
    }
}
