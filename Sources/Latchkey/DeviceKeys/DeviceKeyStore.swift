import Crypto
import Foundation

/// Where a device keeps the private half of its device key and signs with it.
///
/// Implementations: ``SecureEnclaveDeviceKeyStore`` (Apple platforms: the key never leaves the
/// Secure Enclave and every signature is unlocked by biometrics) and ``SoftwareDeviceKeyStore``
/// (elsewhere: the key is kept in a ``SessionStorage``; tests use it over an in-memory storage).
public protocol DeviceKeyStore: Sendable {
    /// Creates a new P-256 key pair under `tag`, replacing any key there, and returns its public half.
    func createKey(tag: String) async throws -> P256.Signing.PublicKey
    /// Signs `data` (ECDSA P-256 over its SHA-256) with the key under `tag` and returns the raw
    /// 64-byte `r‖s` signature, or `nil` when the key is gone (never created, or lost when the
    /// device was restored from a backup or its biometrics changed). `reason` is what a biometric
    /// prompt shows the user.
    func sign(_ data: Data, tag: String, reason: String) async throws -> Data?
    /// Deletes the key under `tag`; no key is not an error.
    func deleteKey(tag: String) async throws
}

/// Keeps device keys in software, in a ``SessionStorage`` as secrets (a file only its owner can
/// read, by default; in the keychain, on this device only and, as `protection` says, behind the
/// user's presence). The Linux default, and Apple devices' without a Secure Enclave: whoever can
/// read the storage can sign in as the user, so protect it like the session itself.
public struct SoftwareDeviceKeyStore: DeviceKeyStore {
    /// Where the private keys are kept.
    public let storage: any SessionStorage
    /// How the keychain protects them.
    public let protection: SecretProtection

    /// Creates a store over `storage`; in the keychain, `protection` decides whether each
    /// signature asks for the user (by default not: on this device only).
    public init(storage: any SessionStorage, protection: SecretProtection = .thisDevice) {
        self.storage = storage
        self.protection = protection
    }

    /// Creates and stores a new key pair.
    public func createKey(tag: String) async throws -> P256.Signing.PublicKey {
        let key = P256.Signing.PrivateKey()
        try await storage.saveSecret(key.rawRepresentation, key: tag, protection: protection)
        return key.publicKey
    }

    /// Signs with the stored key (asking for the user with `reason` when it is behind their
    /// presence); `nil` when there is none or it is unreadable.
    public func sign(_ data: Data, tag: String, reason: String) async throws -> Data? {
        guard let raw = try await storage.loadSecret(key: tag, reason: reason),
            let key = try? P256.Signing.PrivateKey(rawRepresentation: raw)
        else {
            return nil
        }
        return try key.signature(for: data).rawRepresentation
    }

    /// Deletes the stored key.
    public func deleteKey(tag: String) async throws {
        try await storage.remove(key: tag)
    }
}
