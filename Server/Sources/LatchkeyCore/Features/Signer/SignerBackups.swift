import Foundation
import LatchkeyAPI

/// The embedded-signer extension (`/signer/…`): the encrypted backup of a user's signing key,
/// and the key of automatic recovery, made on first use and kept sealed under the server secret.
public struct SignerBackups: Sendable {
    let store: any SignerBackupStore
    let box: SecretBox
    let gate: SecondFactorGate
    let time: any TimeSource
    let random: any RandomSource

    /// - Parameter serverSecret: the recovery keys are sealed under a key derived from it.
    public init(
        store: any SignerBackupStore, serverSecret: [UInt8], gate: SecondFactorGate, time: any TimeSource, random: any RandomSource
    ) {
        self.store = store
        self.box = SecretBox(serverSecret: serverSecret, purpose: "latchkey signer recovery key v1")
        self.gate = gate
        self.time = time
        self.random = random
    }

    /// `PUT /signer/backup`: stores the backup. A backup of another key is never overwritten
    /// (`409 conflict`): delete it first.
    public func put(_ request: SignerBackup, principal: Principal) async throws -> SignerBackup {
        guard principal.session != nil else { throw AuthError(.noAuthorization, "A signer backup needs a user session") }
        try await gate.require(principal, to: "back up a signer")
        let (publicKey, ciphertext) = try Self.validated(request)
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
    public func get(principal: Principal) async throws -> SignerBackup {
        try await gate.require(principal, to: "read a signer backup")
        guard let backup = try await store.signerBackup(userID: principal.user.id) else { throw Self.noBackup }
        return backup.wire
    }

    /// `DELETE /signer/backup`.
    public func delete(principal: Principal) async throws {
        guard principal.session != nil else { throw AuthError(.noAuthorization, "Deleting a signer backup needs a user session") }
        try await gate.require(principal, to: "delete a signer backup")
        guard try await store.deleteSignerBackup(userID: principal.user.id) else { throw Self.noBackup }
    }

    /// `POST /signer/recovery-key`: the key of automatic recovery, released only to the user's
    /// own session.
    public func recoveryKey(principal: Principal) async throws -> SignerRecoveryKey {
        guard principal.session != nil else { throw AuthError(.noAuthorization, "The recovery key needs a user session") }
        try await gate.require(principal, to: "read the signer recovery key")
        let context = "signer-recovery|" + principal.user.id.lowercasedString
        let fresh = try box.seal(random.bytes(32), context: context)
        let sealed = try await store.signerRecoveryKey(userID: principal.user.id, creating: fresh, at: time.now())
        return SignerRecoveryKey(key: Base64URL.encode(Data(try box.open(sealed, context: context))))
    }

    static let noBackup = AuthError(.notFound, "The user has no signer backup")

    /// The request's public key and ciphertext, once its fields are what the API document says.
    static func validated(_ request: SignerBackup) throws -> (publicKey: String, ciphertext: String) {
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
        return (publicKey, ciphertext)
    }
}
