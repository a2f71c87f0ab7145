import Foundation

/// What a device keeps of a vault: the signing key encrypted (AES-GCM) under a key derived from
/// the PIN (and, server-assisted, the server's share), the salt and cost, and the wrong-PIN count
/// of a local vault. Nothing in it opens without the PIN.
struct VaultBlob: Codable, Sendable, Equatable {
    /// `server` or `local`.
    var mode: String
    /// The server vault's id (server-assisted vaults).
    var vaultID: String?
    /// The user whose session created the server vault.
    var userID: String?
    var salt: String
    var kdf: ScryptParameters
    /// Nonce, ciphertext and tag of the private key, base64url.
    var sealedKey: String
    /// The Ed25519 public key, base64url; authenticated with the ciphertext.
    var publicKey: String
    /// Local vaults: wrong PINs in a row, and the earliest next try.
    var failures: Int
    var notBefore: Date?

    enum CodingKeys: String, CodingKey {
        case mode, salt, kdf, failures
        case vaultID = "vault_id"
        case userID = "user_id"
        case sealedKey = "sealed_key"
        case publicKey = "public_key"
        case notBefore = "not_before"
    }

    /// What the AES-GCM tag binds the ciphertext to.
    var context: String { "latchkey-vault|\(mode)|\(vaultID ?? "")|\(publicKey)" }
}
