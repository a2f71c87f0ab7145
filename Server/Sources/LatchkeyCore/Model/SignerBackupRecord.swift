import Foundation
import LatchkeyAPI

/// A user's embedded-signer backup: ciphertext only, and how it was encrypted.
public struct SignerBackupRecord: Sendable, Equatable {
    public var userID: UUID
    /// The Ed25519 public key, base64url.
    public var publicKey: String
    /// `password` or `automatic`.
    public var recovery: String
    /// Nonce, ciphertext and tag, base64url.
    public var ciphertext: String
    /// The key derivation of a `password` backup.
    public var kdf: SignerKDF?
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        userID: UUID, publicKey: String, recovery: String, ciphertext: String, kdf: SignerKDF?, createdAt: Date, updatedAt: Date
    ) {
        self.userID = userID
        self.publicKey = publicKey
        self.recovery = recovery
        self.ciphertext = ciphertext
        self.kdf = kdf
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The backup as the API shows it.
    public var wire: SignerBackup {
        SignerBackup(
            publicKey: publicKey, recovery: recovery, ciphertext: ciphertext, kdf: kdf, createdAt: createdAt, updatedAt: updatedAt)
    }
}
