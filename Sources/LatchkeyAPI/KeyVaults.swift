import Foundation

/// `POST /vaults` (Latchkey extension): create a server-assisted PIN vault for the signed-in user.
///
/// The device derives a *verifier* from the PIN (never the PIN itself); the server answers with a
/// random *share* that, combined with the PIN, makes the key that encrypts the vault on the
/// device. The server releases the share again only for the right verifier, and destroys it
/// after too many wrong ones.
public struct CreateVaultRequest: Codable, Sendable, Equatable {
    /// 32 bytes derived from the PIN, base64url (`verifier`).
    public var verifier: String?

    /// Creates a request.
    public init(verifier: String?) { self.verifier = verifier }
}

/// `POST /vaults/{id}/unlock`: prove the PIN and receive the share.
public struct UnlockVaultRequest: Codable, Sendable, Equatable {
    /// The verifier derived from the PIN the user typed, base64url (`verifier`).
    public var verifier: String?

    /// Creates a request.
    public init(verifier: String?) { self.verifier = verifier }
}

/// A vault as the server keeps it, with the share when the answer releases it.
public struct KeyVault: Codable, Sendable, Equatable {
    /// The vault's id (`id`).
    public var id: UUID
    /// The server's secret share, base64url; only in answers to creation and a right PIN (`share`).
    public var share: String?
    /// Wrong PINs since the last right one (`failed_attempts`).
    public var failedAttempts: Int
    /// Wrong PINs that destroy the share (`max_attempts`).
    public var maxAttempts: Int
    /// Whether the share was destroyed: the vault can never open again (`locked`).
    public var locked: Bool
    /// When the vault was created (`created_at`).
    public var createdAt: Date

    /// Creates a vault description.
    public init(id: UUID, share: String?, failedAttempts: Int, maxAttempts: Int, locked: Bool, createdAt: Date) {
        self.id = id
        self.share = share
        self.failedAttempts = failedAttempts
        self.maxAttempts = maxAttempts
        self.locked = locked
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, share, locked
        case failedAttempts = "failed_attempts"
        case maxAttempts = "max_attempts"
        case createdAt = "created_at"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeLowercased(id, forKey: .id)
        try c.encodeIfPresent(share, forKey: .share)
        try c.encode(failedAttempts, forKey: .failedAttempts)
        try c.encode(maxAttempts, forKey: .maxAttempts)
        try c.encode(locked, forKey: .locked)
        try c.encode(createdAt, forKey: .createdAt)
    }
}

/// `GET /vaults`: the signed-in user's vaults (without shares).
public struct KeyVaultList: Codable, Sendable, Equatable {
    /// The vaults, oldest first (`vaults`).
    public var vaults: [KeyVault]

    /// Creates a list.
    public init(vaults: [KeyVault]) { self.vaults = vaults }
}

/// The scrypt parameters and salt that turned a recovery password into the key of a signer
/// backup (`kdf`).
public struct SignerKDF: Codable, Sendable, Equatable {
    /// The salt, base64url (`salt`).
    public var salt: String
    /// log2 of scrypt's N (`log_n`).
    public var logN: Int
    /// scrypt's r (`r`).
    public var r: Int
    /// scrypt's p (`p`).
    public var p: Int

    /// Creates parameters.
    public init(salt: String, logN: Int, r: Int, p: Int) {
        self.salt = salt
        self.logN = logN
        self.r = r
        self.p = p
    }

    enum CodingKeys: String, CodingKey {
        case salt, r, p
        case logN = "log_n"
    }
}

/// The encrypted backup of a user's embedded signing key (Latchkey extension): `PUT` and `GET
/// /signer/backup`. The server stores only ciphertext; how it was encrypted is `recovery`.
public struct SignerBackup: Codable, Sendable, Equatable {
    /// The Ed25519 public key, base64url (`public_key`).
    public var publicKey: String?
    /// `password` (a key derived from the user's recovery password) or `automatic` (a key the
    /// server releases to the signed-in user) (`recovery`).
    public var recovery: String?
    /// Nonce, ciphertext and tag of the private key, base64url (`ciphertext`).
    public var ciphertext: String?
    /// For `password`: how the key was derived (`kdf`).
    public var kdf: SignerKDF?
    /// When the backup was first stored (`created_at`); set by the server.
    public var createdAt: Date?
    /// When it last changed (`updated_at`); set by the server.
    public var updatedAt: Date?

    /// Creates a backup.
    public init(
        publicKey: String?, recovery: String?, ciphertext: String?, kdf: SignerKDF?, createdAt: Date? = nil, updatedAt: Date? = nil
    ) {
        self.publicKey = publicKey
        self.recovery = recovery
        self.ciphertext = ciphertext
        self.kdf = kdf
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case recovery, ciphertext, kdf
        case publicKey = "public_key"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }
}

/// `POST /signer/recovery-key`: the per-user key of automatic recovery.
public struct SignerRecoveryKey: Codable, Sendable, Equatable {
    /// 32 bytes, base64url (`key`).
    public var key: String

    /// Creates an answer.
    public init(key: String) { self.key = key }
}
