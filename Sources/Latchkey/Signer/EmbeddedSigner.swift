import Crypto
import Foundation
import LatchkeyAPI

/// The user's own signing key, made on the device after sign-in, backed up encrypted on the
/// server and recovered on a new device (the Openfort and Privy embedded wallets).
///
/// ```swift
/// let signer = EmbeddedSigner(auth: auth)
/// switch try await signer.refresh() {
/// case .notConfigured: try await signer.configure(recovery: .password(recoveryPassword))
/// case .locked: try await signer.recover(.password(recoveryPassword))   // a new device
/// case .ready: break
/// }
/// let signature = try await signer.sign(transaction)
/// ```
///
/// Recovery methods:
/// - ``Recovery/password(_:)``: the backup is encrypted on the device under a key derived from
///   the user's recovery password (scrypt at OWASP cost); the server stores only ciphertext and
///   can never open it.
/// - ``Recovery/automatic``: encrypted under a key the server keeps per user (sealed under its
///   secret) and releases only to the user's session. Nothing to remember, but whoever runs the
///   server (with its secret) could open it: custodial in that sense.
public actor EmbeddedSigner {
    /// Where the signer stands for the signed-in user.
    public enum State: Sendable, Equatable {
        /// The user has no signing key yet: ``configure(recovery:)`` (Openfort's
        /// `embeddedSignerNotConfigured`).
        case notConfigured
        /// The user has a key, backed up on the server, but this device does not hold it (a new
        /// device, or nobody is signed in): ``recover(_:)``.
        case locked
        /// The key is on this device: ``sign(_:)``.
        case ready(publicKey: Data)
    }

    /// How the backup is encrypted.
    public enum Recovery: Sendable {
        /// Under a key derived from this recovery password (at least 12 characters).
        case password(String)
        /// Under a key the server releases to the signed-in user.
        case automatic
    }

    let auth: AuthClient
    let storage: any SessionStorage
    let kdf: ScryptParameters
    /// How the keychain protects the key; with the user's presence, every signature asks.
    let protection: SecretProtection
    /// What that prompt says.
    let unlockReason: String
    /// The current state; ``states`` streams its changes.
    public nonisolated var state: State { broadcast.current }
    let broadcast = StateBroadcast(State.locked)
    /// Follows `auth`'s changes while the signer exists: released with it, it cancels the
    /// following task, so a released signer stops listening at once.
    let following = TaskHandle()
    /// Counts the changes this device made (configure, recover, forget), so a refresh that raced
    /// one of them does not publish what it saw before.
    var generation = 0

    /// A signer for `auth`'s user, keeping the key in `storage` (by default `auth`'s: the
    /// keychain on Apple platforms, where the key is kept on this device only, never in a backup;
    /// the server's encrypted backup is how it reaches another device). With `protection`
    /// `.userPresence` or `.biometryCurrentSet` every signature (and a change of recovery) asks
    /// for Face ID, Touch ID or the passcode, showing `unlockReason`; working out the state never
    /// does (the public key is kept beside the private one). `kdf` is the cost of password backups.
    ///
    /// The signer follows `auth`: a sign-out makes it ``State/locked``, a sign-in (or the restored
    /// session) refreshes it.
    public init(
        auth: AuthClient, storage: (any SessionStorage)? = nil, kdf: ScryptParameters = .owasp,
        protection: SecretProtection = .thisDevice, unlockReason: String = "Unlock your signing key"
    ) {
        self.protection = protection
        self.unlockReason = unlockReason
        self.auth = auth
        self.storage = storage ?? auth.configuration.storage
        self.kdf = kdf
        let changes = auth.authStateChanges
        following.set(
            Task { [weak self] in
                for await change in changes {
                    guard let self else { return }
                    await self.follow(change)
                }
            })
    }

    func follow(_ change: AuthStateChange) async {
        switch change.event {
        case .signedOut:
            generation += 1
            publish(.locked)
        case .initialSession, .signedIn:
            if change.session == nil { publish(.locked) } else { _ = try? await refresh() }
        default:
            break
        }
    }

    /// The state now and after every change.
    public nonisolated var states: AsyncStream<State> { broadcast.stream() }

    func publish(_ new: State) {
        guard new != broadcast.current else { return }
        broadcast.send(new)
    }

    /// The public key of the key on this device, when ready.
    public var publicKey: Curve25519.Signing.PublicKey? {
        guard case .ready(let raw) = state else { return nil }
        return try? Curve25519.Signing.PublicKey(rawRepresentation: raw)
    }

    /// Works out the state for the signed-in user: the key on this device, else whether the
    /// server has a backup.
    @discardableResult
    public func refresh() async throws -> State {
        let started = generation
        guard let userID = await auth.currentUser?.id else {
            if generation == started { publish(.locked) }
            return state
        }
        let seen: State
        if let publicKey = try await localPublicKey(userID) {
            seen = .ready(publicKey: publicKey)
        } else {
            seen = try await fetchBackup() == nil ? .notConfigured : .locked
        }
        if generation == started { publish(seen) }
        return state
    }

    /// Creates the user's signing key on this device and stores its encrypted backup on the
    /// server. Throws `conflict` when the user already has a signer (``recover(_:)`` it instead).
    @discardableResult
    public func configure(recovery: Recovery) async throws -> Curve25519.Signing.PublicKey {
        let userID = try await signedInUser()
        let key = Curve25519.Signing.PrivateKey()
        let backup = try await seal(key, recovery: recovery, userID: userID)
        _ = try await auth.sendAuthorized("PUT", "signer/backup", body: backup, as: SignerBackup.self)
        generation += 1
        try await keep(key, userID: userID)
        publish(.ready(publicKey: key.publicKey.rawRepresentation))
        return key.publicKey
    }

    /// Recovers the user's key from the server's backup onto this device. Throws
    /// `invalid_recovery_password` for a wrong password and `signer_not_configured` when there
    /// is no backup.
    @discardableResult
    public func recover(_ recovery: Recovery) async throws -> Curve25519.Signing.PublicKey {
        let userID = try await signedInUser()
        guard let backup = try await fetchBackup() else {
            throw LatchkeyError(code: .signerNotConfigured, message: "The user has no signer to recover: configure one")
        }
        let key = try await open(backup, recovery: recovery, userID: userID)
        generation += 1
        try await keep(key, userID: userID)
        publish(.ready(publicKey: key.publicKey.rawRepresentation))
        return key.publicKey
    }

    /// Re-encrypts the backup under another recovery method (the key on this device is needed).
    public func setRecovery(_ recovery: Recovery) async throws {
        let userID = try await signedInUser()
        guard let key = try await localKey(userID) else {
            throw LatchkeyError(code: .signerNotConfigured, message: "This device does not hold the signer: recover it first")
        }
        _ = try await auth.sendAuthorized(
            "PUT", "signer/backup", body: try await seal(key, recovery: recovery, userID: userID), as: SignerBackup.self)
    }

    /// Signs `message` with the user's key (Ed25519). Throws `signer_not_configured` unless ready.
    public func sign(_ message: Data) async throws -> Data {
        let userID = try await signedInUser()
        guard let key = try await localKey(userID) else {
            throw LatchkeyError(
                code: .signerNotConfigured, message: "The signer is not ready on this device: configure or recover it")
        }
        return try key.signature(for: message)
    }

    /// Forgets the key on this device (the backup stays): for shared devices at sign-out.
    public func forgetOnThisDevice() async throws {
        generation += 1
        if let userID = await auth.currentUser?.id {
            try await storage.remove(key: publicKeyStorageKey(userID))
            try await storage.remove(key: keyStorageKey(userID))
        }
        publish(.locked)
    }

    // MARK: Backups

    func seal(_ key: Curve25519.Signing.PrivateKey, recovery: Recovery, userID: UUID) async throws -> SignerBackup {
        let publicKey = Base64URL.encode(key.publicKey.rawRepresentation)
        let (symmetric, kdf) = try await backupKey(recovery, userID: userID, publicKey: publicKey, existing: nil)
        let box = try AES.GCM.seal(key.rawRepresentation, using: symmetric, authenticating: Data(publicKey.utf8))
        guard let combined = box.combined else { throw LatchkeyError(code: .vaultCorrupted, message: "Cannot seal the signer") }
        return SignerBackup(
            publicKey: publicKey, recovery: Self.name(recovery), ciphertext: Base64URL.encode(combined), kdf: kdf)
    }

    func open(_ backup: SignerBackup, recovery: Recovery, userID: UUID) async throws -> Curve25519.Signing.PrivateKey {
        guard let publicKey = backup.publicKey, let sealed = backup.ciphertext.flatMap({ Base64URL.decode($0) }),
            backup.recovery == Self.name(recovery)
        else {
            throw LatchkeyError(
                code: .invalidRecoveryPassword,
                message: "The backup was made with \(backup.recovery ?? "another") recovery, not \(Self.name(recovery))")
        }
        let (symmetric, _) = try await backupKey(recovery, userID: userID, publicKey: publicKey, existing: backup.kdf)
        guard let box = try? AES.GCM.SealedBox(combined: sealed),
            let raw = try? AES.GCM.open(box, using: symmetric, authenticating: Data(publicKey.utf8)),
            let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: raw),
            Base64URL.encode(key.publicKey.rawRepresentation) == publicKey
        else {
            if case .password = recovery {
                throw LatchkeyError(code: .invalidRecoveryPassword, message: "Wrong recovery password")
            }
            throw LatchkeyError(code: .vaultCorrupted, message: "The signer backup cannot be opened")
        }
        return key
    }

    /// The key a backup is sealed under, and (for passwords) the derivation to store with it.
    func backupKey(_ recovery: Recovery, userID: UUID, publicKey: String, existing: SignerKDF?) async throws
        -> (SymmetricKey, SignerKDF?)
    {
        let context = "latchkey-signer|\(userID.uuidString.lowercased())|\(publicKey)"
        switch recovery {
        case .password(let password):
            let kdf: SignerKDF
            if let existing {
                kdf = existing
            } else {
                guard password.count >= 12 else {
                    throw LatchkeyError(code: .weakPassword, message: "A recovery password needs at least 12 characters")
                }
                kdf = SignerKDF(
                    salt: Base64URL.encode(VaultSecrets.randomSalt()), logN: self.kdf.logN, r: self.kdf.r, p: self.kdf.p)
            }
            guard let salt = Base64URL.decode(kdf.salt) else { throw LatchkeyError(code: .vaultCorrupted, message: "Bad salt") }
            let secrets = try VaultSecrets(
                secret: password, salt: salt, parameters: ScryptParameters(logN: kdf.logN, r: kdf.r, p: kdf.p))
            return (secrets.key(share: nil, context: context), kdf)
        case .automatic:
            let answer = try await auth.sendAuthorized("POST", "signer/recovery-key", body: nil, as: SignerRecoveryKey.self)
            guard let raw = Base64URL.decode(answer.key), raw.count == 32 else {
                throw LatchkeyError(code: .invalidResponse, message: "The server sent no recovery key")
            }
            let key = HKDF<SHA256>.deriveKey(
                inputKeyMaterial: SymmetricKey(data: raw), salt: Data(context.utf8),
                info: Data("latchkey signer automatic v1".utf8), outputByteCount: 32)
            return (key, nil)
        }
    }

    static func name(_ recovery: Recovery) -> String {
        switch recovery {
        case .password: "password"
        case .automatic: "automatic"
        }
    }

    func fetchBackup() async throws -> SignerBackup? {
        do {
            return try await auth.sendAuthorized("GET", "signer/backup", body: nil, as: SignerBackup.self)
        } catch let error as LatchkeyError where error.code == .notFound {
            return nil
        }
    }

    func signedInUser() async throws -> UUID {
        try await auth.session().user.id
    }

    func keyStorageKey(_ userID: UUID) -> String { "latchkey.signer.\(userID.uuidString.lowercased())" }

    func publicKeyStorageKey(_ userID: UUID) -> String { keyStorageKey(userID) + ".public" }

    /// The private key (asking for the user when it is behind their presence).
    func localKey(_ userID: UUID) async throws -> Curve25519.Signing.PrivateKey? {
        try await storage.loadSecret(key: keyStorageKey(userID), reason: unlockReason).flatMap {
            try? Curve25519.Signing.PrivateKey(rawRepresentation: $0)
        }
    }

    /// The public key of the key on this device, read without asking the user. A key an earlier
    /// SDK stored has no public copy beside it: it is read once (it was never behind the user's
    /// presence) and the copy written.
    func localPublicKey(_ userID: UUID) async throws -> Data? {
        if let raw = try await storage.load(key: publicKeyStorageKey(userID)) { return raw }
        guard protection == .thisDevice, let key = try await localKey(userID) else { return nil }
        try? await storage.save(key.publicKey.rawRepresentation, key: publicKeyStorageKey(userID))
        return key.publicKey.rawRepresentation
    }

    /// Keeps the private key as a secret and its public key beside it.
    func keep(_ key: Curve25519.Signing.PrivateKey, userID: UUID) async throws {
        try await storage.saveSecret(key.rawRepresentation, key: keyStorageKey(userID), protection: protection)
        try await storage.save(key.publicKey.rawRepresentation, key: publicKeyStorageKey(userID))
    }
}
