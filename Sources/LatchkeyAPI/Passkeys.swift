import Foundation

/// What `/passkeys/registration/options` and `/passkeys/authentication/options` answer: the
/// WebAuthn options for `navigator.credentials.create()`/`get()` (or `ASAuthorization…`), and the
/// challenge's id to send back with the credential.
public struct PasskeyOptionsResponse: Codable, Sendable, Equatable {
    public var challengeID: UUID
    /// `PublicKeyCredentialCreationOptions` or `…RequestOptions` JSON, binary fields base64url.
    public var options: JSONValue
    /// Unix seconds.
    public var expiresAt: Int

    public init(challengeID: UUID, options: JSONValue, expiresAt: Int) {
        self.challengeID = challengeID
        self.options = options
        self.expiresAt = expiresAt
    }

    enum CodingKeys: String, CodingKey {
        case challengeID = "challenge_id"
        case options
        case expiresAt = "expires_at"
    }
}

/// A `PublicKeyCredential` as JSON (WebAuthn's `toJSON()`): binary fields base64url.
public struct PasskeyCredential: Codable, Sendable, Equatable {
    public struct Response: Codable, Sendable, Equatable {
        public var clientDataJSON: String?
        public var attestationObject: String?
        public var authenticatorData: String?
        public var signature: String?
        public var userHandle: String?
        public var transports: [String]?

        public init(
            clientDataJSON: String?, attestationObject: String? = nil, authenticatorData: String? = nil, signature: String? = nil,
            userHandle: String? = nil, transports: [String]? = nil
        ) {
            self.clientDataJSON = clientDataJSON
            self.attestationObject = attestationObject
            self.authenticatorData = authenticatorData
            self.signature = signature
            self.userHandle = userHandle
            self.transports = transports
        }
    }

    public var id: String?
    public var rawId: String?
    public var type: String?
    public var response: Response?

    public init(id: String?, rawId: String?, type: String? = "public-key", response: Response?) {
        self.id = id
        self.rawId = rawId
        self.type = type
        self.response = response
    }
}

/// The body of `/passkeys/registration/verify` and `/passkeys/authentication/verify`.
public struct PasskeyVerifyRequest: Codable, Sendable, Equatable {
    public var challengeID: String?
    public var credential: PasskeyCredential?

    public init(challengeID: String?, credential: PasskeyCredential?) {
        self.challengeID = challengeID
        self.credential = credential
    }

    enum CodingKeys: String, CodingKey {
        case challengeID = "challenge_id"
        case credential
    }
}

/// A registered passkey as `GET /passkeys` lists it (GoTrue shows no more: the key and
/// credential id stay on the server).
public struct Passkey: Codable, Sendable, Equatable, Identifiable {
    public var id: UUID
    /// `Passkey` unless renamed (`PATCH /passkeys/{id}`).
    public var friendlyName: String?
    public var createdAt: Date
    public var lastUsedAt: Date?
    /// Latchkey extension: whether the passkey may be synced between devices (iCloud Keychain,
    /// Google Password Manager), and whether it is, rather than bound to one authenticator.
    public var backupEligible: Bool?
    public var backedUp: Bool?

    public init(
        id: UUID, friendlyName: String?, createdAt: Date, lastUsedAt: Date? = nil, backupEligible: Bool? = nil, backedUp: Bool? = nil
    ) {
        self.id = id
        self.friendlyName = friendlyName
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.backupEligible = backupEligible
        self.backedUp = backedUp
    }

    enum CodingKeys: String, CodingKey {
        case id
        case friendlyName = "friendly_name"
        case createdAt = "created_at"
        case lastUsedAt = "last_used_at"
        case backupEligible = "backup_eligible"
        case backedUp = "backed_up"
    }
}

/// The body of `PATCH /passkeys/{id}`.
public struct PasskeyUpdateRequest: Codable, Sendable, Equatable {
    public var friendlyName: String?

    public init(friendlyName: String?) {
        self.friendlyName = friendlyName
    }

    enum CodingKeys: String, CodingKey {
        case friendlyName = "friendly_name"
    }
}
