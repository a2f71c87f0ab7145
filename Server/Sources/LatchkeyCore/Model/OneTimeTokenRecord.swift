import Foundation

/// What a one-time code or link proves.
public enum OneTimeTokenKind: String, Sendable, CaseIterable {
    /// Confirms the address at sign-up (and signs in).
    case confirmation
    /// Signs in an existing, confirmed user.
    case magiclink
    /// Password recovery.
    case recovery
    /// Confirms an email change from the current address.
    case emailChangeCurrent = "email_change_current"
    /// Confirms an email change from the new address.
    case emailChangeNew = "email_change_new"
    /// An operator's invitation: confirms the address and signs in (`POST /invite`).
    case invite
    /// A code that proves the signed-in user is present (`GET /reauthenticate`).
    case reauthentication
    /// An SMS code: confirms the number and signs in.
    case sms
    /// Confirms a new phone number.
    case phoneChange = "phone_change"
}

/// A one-time code and its link, stored only as hashes.
///
/// One row carries both the numeric code (hashed with the user's id) and the link secret
/// (a 256-bit random value, hashed); using either consumes the row.
public struct OneTimeTokenRecord: Sendable, Equatable {
    public var id: UUID
    public var userID: UUID
    public var kind: OneTimeTokenKind
    /// The address the code was sent to.
    public var relatesTo: String
    /// Hex SHA-256 of the code bound to the user (see ``OneTimeSecrets``).
    public var codeHash: String
    /// Hex SHA-256 of the link secret.
    public var linkHash: String
    /// Wrong submissions so far.
    public var attempts: Int
    public var redirectTo: String?
    /// The PKCE challenge of the client that asked for the link, if any.
    public var challenge: PKCEChallenge?
    public var createdAt: Date
    public var expiresAt: Date
    public var consumedAt: Date?

    public init(
        id: UUID, userID: UUID, kind: OneTimeTokenKind, relatesTo: String, codeHash: String, linkHash: String,
        attempts: Int = 0, redirectTo: String?, challenge: PKCEChallenge? = nil, createdAt: Date, expiresAt: Date,
        consumedAt: Date? = nil
    ) {
        self.challenge = challenge
        self.id = id
        self.userID = userID
        self.kind = kind
        self.relatesTo = relatesTo
        self.codeHash = codeHash
        self.linkHash = linkHash
        self.attempts = attempts
        self.redirectTo = redirectTo
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.consumedAt = consumedAt
    }
}
