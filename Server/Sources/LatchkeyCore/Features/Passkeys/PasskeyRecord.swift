import Foundation

/// A passkey as stored: a WebAuthn credential of one user.
public struct PasskeyRecord: Sendable, Equatable {
    public var id: UUID
    public var userID: UUID
    /// The credential id the authenticator chose (unique across users).
    public var credentialID: [UInt8]
    /// The COSE public key, as registered.
    public var publicKey: [UInt8]
    /// `none` or `packed`.
    public var attestationType: String
    public var aaguid: [UInt8]
    public var signCount: UInt32
    public var transports: [String]
    public var backupEligible: Bool
    public var backedUp: Bool
    public var friendlyName: String
    public var createdAt: Date
    public var updatedAt: Date
    public var lastUsedAt: Date?

    public init(
        id: UUID, userID: UUID, credentialID: [UInt8], publicKey: [UInt8], attestationType: String, aaguid: [UInt8], signCount: UInt32,
        transports: [String], backupEligible: Bool, backedUp: Bool, friendlyName: String, createdAt: Date, updatedAt: Date,
        lastUsedAt: Date? = nil
    ) {
        self.id = id
        self.userID = userID
        self.credentialID = credentialID
        self.publicKey = publicKey
        self.attestationType = attestationType
        self.aaguid = aaguid
        self.signCount = signCount
        self.transports = transports
        self.backupEligible = backupEligible
        self.backedUp = backedUp
        self.friendlyName = friendlyName
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.lastUsedAt = lastUsedAt
    }
}

/// A WebAuthn challenge Latchkey issued: good once, for one ceremony, until it expires.
public struct WebAuthnChallengeRecord: Sendable, Equatable {
    public enum Ceremony: String, Sendable {
        case registration
        case authentication
    }

    public var id: UUID
    /// The signed-in user a registration is for; `nil` for a sign-in (discoverable credentials).
    public var userID: UUID?
    public var ceremony: Ceremony
    public var challenge: [UInt8]
    public var createdAt: Date
    public var expiresAt: Date

    public init(id: UUID, userID: UUID?, ceremony: Ceremony, challenge: [UInt8], createdAt: Date, expiresAt: Date) {
        self.id = id
        self.userID = userID
        self.ceremony = ceremony
        self.challenge = challenge
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
