import Crypto
import Foundation
import LatchkeyAPI

/// A signing key protected by a PIN: SwiftBasicPay's `AuthService` (`signUp(keyPair, pin)`,
/// `signIn(pin)`, `signOut()`, `userKeyPair(pin)`), without its weaknesses.
///
/// ```swift
/// let vault = KeyVault(auth: auth)                       // server-assisted: the default with a server
/// try await vault.signUp(keyPair: Curve25519.Signing.PrivateKey(), pin: "480913")
/// let signature = try await vault.sign(transaction, pin: typedPIN)
/// ```
///
/// The PIN is never stored or sent. It is stretched with scrypt under a random salt, and the key
/// is sealed with AES-GCM under:
/// - **server-assisted** (``Mode/serverAssisted(_:)``): the stretched PIN *and* a random share the
///   server releases only to the signed-in user presenting a verifier derived from the PIN. The
///   server counts wrong PINs and destroys the share after ten in a row, so a stolen device cannot
///   be guessed offline, and the server alone (it never sees the sealed key) can never open it.
/// - **local only** (``Mode/localOnly``): the stretched PIN alone (scrypt at OWASP cost), with
///   growing delays after five wrong PINs. Weaker: whoever copies the stored vault can guess the
///   PIN offline at scrypt's pace, so prefer the server-assisted mode whenever there is a server.
public actor KeyVault {
    /// Where the second factor of the vault key comes from.
    public enum Mode: Sendable {
        /// The server keeps a share and counts wrong PINs; needs a signed-in ``AuthClient``.
        case serverAssisted(AuthClient)
        /// The device alone; see the type's discussion for why this is weaker.
        case localOnly
    }

    /// How a vault is set up.
    public struct Configuration: Sendable {
        /// Server-assisted or local only.
        public var mode: Mode
        /// Where the sealed key is kept.
        public var storage: any SessionStorage
        /// The key it is stored under.
        public var storageKey: String
        /// What a PIN must be.
        public var pinPolicy: PINPolicy
        /// The scrypt cost for new vaults; by default 2^15 server-assisted (the server's count is
        /// the real defence) and OWASP's 2^17 local only.
        public var kdf: ScryptParameters
        /// The clock, for local-only delays.
        public var now: @Sendable () -> Date

        /// Creates a configuration.
        public init(
            mode: Mode, storage: any SessionStorage, storageKey: String = "latchkey.vault", pinPolicy: PINPolicy = PINPolicy(),
            kdf: ScryptParameters? = nil, now: @escaping @Sendable () -> Date = { Date() }
        ) {
            self.mode = mode
            self.storage = storage
            self.storageKey = storageKey
            self.pinPolicy = pinPolicy
            if case .localOnly = mode { self.kdf = kdf ?? .owasp } else { self.kdf = kdf ?? ScryptParameters(logN: 15) }
            self.now = now
        }
    }

    /// How this vault is set up.
    public let configuration: Configuration
    /// The public key of the signed-in vault, `nil` when signed out. Memory only, like the seed's
    /// `signedInUserAddress`: a new launch starts signed out.
    public private(set) var signedInPublicKey: Curve25519.Signing.PublicKey?

    /// Creates a vault.
    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// A server-assisted vault kept in `auth`'s storage.
    public init(auth: AuthClient) {
        self.init(configuration: Configuration(mode: .serverAssisted(auth), storage: auth.configuration.storage))
    }

    /// Whether a vault is stored on this device.
    public var isSignedUp: Bool {
        get async throws { try await load() != nil }
    }

    /// Whether ``signIn(pin:)`` succeeded since the last ``signOut()``.
    public var isSignedIn: Bool { signedInPublicKey != nil }

    /// Seals `keyPair` under `pin` (replacing this device's vault) and signs in. Server-assisted
    /// vaults need a signed-in session. Throws `weak_pin` for a PIN the policy refuses.
    @discardableResult
    public func signUp(keyPair: Curve25519.Signing.PrivateKey, pin: String) async throws -> Curve25519.Signing.PublicKey {
        try configuration.pinPolicy.check(pin)
        // A damaged vault is simply replaced.
        let previous = (try? await load()) ?? nil
        let blob = try await seal(keyPair, pin: pin)
        try await save(blob)
        if let previous, previous.vaultID != blob.vaultID { await deleteServerVault(previous) }
        signedInPublicKey = keyPair.publicKey
        return keyPair.publicKey
    }

    /// Checks `pin` and signs in. Throws `vault_not_found` when there is no vault,
    /// `invalid_pin` (with ``LatchkeyError/attemptsRemaining`` when the server counts) for a wrong
    /// PIN, `vault_locked` once ten wrong PINs destroyed it, and `pin_delayed` (with
    /// ``LatchkeyError/retryAfter``) while a local vault makes the user wait.
    @discardableResult
    public func signIn(pin: String) async throws -> Curve25519.Signing.PublicKey {
        let key = try await userKeyPair(pin: pin)
        signedInPublicKey = key.publicKey
        return key.publicKey
    }

    /// Signs out (the vault stays on the device).
    public func signOut() {
        signedInPublicKey = nil
    }

    /// The key pair, for one signature; the PIN is needed every time.
    public func userKeyPair(pin: String) async throws -> Curve25519.Signing.PrivateKey {
        guard var blob = try await load() else {
            throw LatchkeyError(code: .vaultNotFound, message: "There is no key vault on this device")
        }
        if blob.mode == "local", let notBefore = blob.notBefore, notBefore > configuration.now() {
            let wait = Int(notBefore.timeIntervalSince(configuration.now()).rounded(.up))
            throw LatchkeyError(code: .pinDelayed, message: "Too many wrong PINs: try again in \(wait) s", retryAfter: wait)
        }
        guard let salt = Base64URL.decode(blob.salt) else { throw Self.corrupted }
        let secrets = try VaultSecrets(secret: pin, salt: salt, parameters: blob.kdf)
        var share: [UInt8]?
        if blob.mode == "server" {
            share = try await unlockShare(blob, verifier: secrets.verifier)
        }
        if let key = Self.open(blob, key: secrets.key(share: share, context: blob.context)) {
            if blob.failures != 0 {
                blob.failures = 0
                blob.notBefore = nil
                try await save(blob)
            }
            return key
        }
        guard blob.mode == "local" else { throw Self.corrupted }
        blob.failures += 1
        let delay = Self.localDelay(afterFailures: blob.failures)
        blob.notBefore = delay > 0 ? configuration.now().addingTimeInterval(delay) : nil
        try await save(blob)
        throw LatchkeyError(code: .invalidPIN, message: "Wrong PIN", retryAfter: delay > 0 ? Int(delay) : nil)
    }

    /// Signs `message` with the vault's key.
    public func sign(_ message: Data, pin: String) async throws -> Data {
        try await userKeyPair(pin: pin).signature(for: message)
    }

    /// Re-seals the key under a new PIN (and, server-assisted, a new server share).
    public func changePIN(from oldPIN: String, to newPIN: String) async throws {
        try configuration.pinPolicy.check(newPIN)
        let key = try await userKeyPair(pin: oldPIN)
        try await signUp(keyPair: key, pin: newPIN)
    }

    /// Deletes the vault here and its share on the server: the key is gone unless the app keeps
    /// another copy (a recovery phrase).
    public func reset() async throws {
        if let blob = (try? await load()) ?? nil { await deleteServerVault(blob) }
        try await configuration.storage.remove(key: configuration.storageKey)
        signedInPublicKey = nil
    }

    // MARK: Sealing

    func seal(_ keyPair: Curve25519.Signing.PrivateKey, pin: String) async throws -> VaultBlob {
        let salt = VaultSecrets.randomSalt()
        let secrets = try VaultSecrets(secret: pin, salt: salt, parameters: configuration.kdf)
        var blob = VaultBlob(
            mode: "local", vaultID: nil, userID: nil, salt: Base64URL.encode(salt), kdf: configuration.kdf, sealedKey: "",
            publicKey: Base64URL.encode(keyPair.publicKey.rawRepresentation), failures: 0, notBefore: nil)
        var share: [UInt8]?
        if case .serverAssisted(let auth) = configuration.mode {
            let (vault, userID) = try await auth.withSession { session in
                let vault = try await auth.api.send(
                    try auth.api.request(
                        "POST", "vaults", body: CreateVaultRequest(verifier: Base64URL.encode(secrets.verifier)),
                        bearer: session.accessToken),
                    as: LatchkeyAPI.KeyVault.self)
                return (vault, session.user.id.uuidString.lowercased())
            }
            guard let raw = vault.share.flatMap({ Base64URL.decode($0) }), raw.count == 32 else {
                throw LatchkeyError(code: .invalidResponse, message: "The server sent no vault share")
            }
            blob.mode = "server"
            blob.vaultID = vault.id.uuidString.lowercased()
            blob.userID = userID
            share = raw
        }
        let box = try AES.GCM.seal(
            keyPair.rawRepresentation, using: secrets.key(share: share, context: blob.context),
            authenticating: Data(blob.publicKey.utf8))
        guard let combined = box.combined else { throw Self.corrupted }
        blob.sealedKey = Base64URL.encode(combined)
        return blob
    }

    static func open(_ blob: VaultBlob, key: SymmetricKey) -> Curve25519.Signing.PrivateKey? {
        guard let combined = Base64URL.decode(blob.sealedKey), let box = try? AES.GCM.SealedBox(combined: combined),
            let raw = try? AES.GCM.open(box, using: key, authenticating: Data(blob.publicKey.utf8)),
            let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: raw),
            Base64URL.encode(key.publicKey.rawRepresentation) == blob.publicKey
        else { return nil }
        return key
    }

    func unlockShare(_ blob: VaultBlob, verifier: [UInt8]) async throws -> [UInt8] {
        guard case .serverAssisted(let auth) = configuration.mode, let id = blob.vaultID else {
            throw LatchkeyError(code: .vaultCorrupted, message: "This vault needs its server: configure the vault with an AuthClient")
        }
        do {
            let vault = try await auth.withSession { session in
                try await auth.api.send(
                    try auth.api.request(
                        "POST", "vaults/\(id)/unlock", body: UnlockVaultRequest(verifier: Base64URL.encode(verifier)),
                        bearer: session.accessToken),
                    as: LatchkeyAPI.KeyVault.self)
            }
            guard let share = vault.share.flatMap({ Base64URL.decode($0) }), share.count == 32 else {
                throw LatchkeyError(code: .invalidResponse, message: "The server sent no vault share")
            }
            return share
        } catch let error as LatchkeyError where error.code == .notFound {
            throw LatchkeyError(
                code: .vaultNotFound, message: "The server has no share for this vault (deleted, or another user is signed in)",
                status: error.status)
        }
    }

    func deleteServerVault(_ blob: VaultBlob) async {
        guard blob.mode == "server", let id = blob.vaultID, case .serverAssisted(let auth) = configuration.mode,
            let session = await auth.currentSession
        else { return }
        _ = try? await auth.api.sendRaw(try auth.api.request("DELETE", "vaults/\(id)", bearer: session.accessToken))
    }

    /// Seconds a local vault makes the user wait after `failures` wrong PINs in a row: none for
    /// the first four, then 30 s doubling to a day.
    static func localDelay(afterFailures failures: Int) -> TimeInterval {
        failures < 5 ? 0 : min(86_400, 30 * pow(2, Double(failures - 5)))
    }

    static let corrupted = LatchkeyError(code: .vaultCorrupted, message: "The stored vault is damaged")

    // MARK: Storage

    func load() async throws -> VaultBlob? {
        guard let data = try await configuration.storage.loadSecret(key: configuration.storageKey, reason: "") else { return nil }
        guard let blob = try? JSONDecoder().decode(VaultBlob.self, from: data) else { throw Self.corrupted }
        return blob
    }

    func save(_ blob: VaultBlob) async throws {
        try await configuration.storage.saveSecret(try JSONEncoder().encode(blob), key: configuration.storageKey, protection: .thisDevice)
    }
}
