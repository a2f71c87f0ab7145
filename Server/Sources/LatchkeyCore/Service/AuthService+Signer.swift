import Foundation
import LatchkeyAPI

extension AuthService {
    /// `PUT /signer/backup`: stores the encrypted backup of the user's embedded signing key. A
    /// backup of another key is never overwritten (`409 conflict`): delete it first.
    public func putSignerBackup(_ request: SignerBackup, principal: Principal) async throws -> SignerBackup {
        guard principal.session != nil else { throw AuthError(.noAuthorization, "A signer backup needs a user session") }
        try await requireAAL2(principal, to: "back up a signer")
        guard let publicKey = request.publicKey, Base64URL.decode(publicKey)?.count == 32 else {
            throw AuthError.validation("public_key must be an Ed25519 public key: 32 bytes, base64url")
        }
        // Nonce (12) + the 32-byte key + tag (16).
        guard let ciphertext = request.ciphertext, Base64URL.decode(ciphertext)?.count == 60 else {
            throw AuthError.validation("ciphertext must be the AES-GCM sealed 32-byte key: 60 bytes, base64url")
        }
        switch (request.recovery, request.kdf) {
        case ("password", let kdf?):
            guard let salt = Base64URL.decode(kdf.salt), (16...64).contains(salt.count), (15...20).contains(kdf.logN),
                (1...16).contains(kdf.r), (1...4).contains(kdf.p)
            else { throw AuthError.validation("kdf must be scrypt with log_n 15–20, r 1–16, p 1–4 and a 16–64 byte salt") }
        case ("password", nil):
            throw AuthError.validation("a password backup needs its kdf")
        case ("automatic", nil):
            break
        case ("automatic", _?):
            throw AuthError.validation("an automatic backup has no kdf")
        default:
            throw AuthError.validation("recovery must be password or automatic")
        }
        let now = time.now()
        let existing = try await store.signerBackup(userID: principal.user.id)
        let backup = SignerBackupRecord(
            userID: principal.user.id, publicKey: publicKey, recovery: request.recovery ?? "", ciphertext: ciphertext,
            kdf: request.kdf, createdAt: existing?.createdAt ?? now, updatedAt: now)
        guard try await store.putSignerBackup(backup) else {
            throw AuthError(.conflict, "The user already has a signer with another key: delete its backup first")
        }
        return backup.wire
    }

    /// `GET /signer/backup`.
    public func signerBackup(principal: Principal) async throws -> SignerBackup {
        try await requireAAL2(principal, to: "read a signer backup")
        guard let backup = try await store.signerBackup(userID: principal.user.id) else {
            throw AuthError(.notFound, "The user has no signer backup")
        }
        return backup.wire
    }

    /// `DELETE /signer/backup`.
    public func deleteSignerBackup(principal: Principal) async throws {
        guard principal.session != nil else { throw AuthError(.noAuthorization, "Deleting a signer backup needs a user session") }
        try await requireAAL2(principal, to: "delete a signer backup")
        guard try await store.deleteSignerBackup(userID: principal.user.id) else {
            throw AuthError(.notFound, "The user has no signer backup")
        }
    }

    /// `POST /signer/recovery-key`: the key of automatic recovery, made on first use and kept
    /// sealed under the server secret; released only to the user's own session.
    public func signerRecoveryKey(principal: Principal) async throws -> SignerRecoveryKey {
        guard principal.session != nil else { throw AuthError(.noAuthorization, "The recovery key needs a user session") }
        try await requireAAL2(principal, to: "read the signer recovery key")
        let context = "signer-recovery|" + principal.user.id.uuidString.lowercased()
        let fresh = try signerBox.seal(SecureRandom.bytes(32), context: context)
        let sealed = try await store.signerRecoveryKey(userID: principal.user.id, creating: fresh, at: time.now())
        return SignerRecoveryKey(key: Base64URL.encode(Data(try signerBox.open(sealed, context: context))))
    }
}
