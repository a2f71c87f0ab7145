import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the SDK keeps the signed-in session between launches.
///
/// Implementations: ``KeychainSessionStorage`` (Apple platforms, the default there),
/// ``FileSessionStorage`` (a file only its owner can read; the default on Linux) and
/// ``InMemorySessionStorage`` (tests, or apps that do not persist). A storage that cannot be read
/// right now (a locked keychain) throws ``LatchkeyError`` with code `storage_unavailable`, which
/// the client treats as "try later", never as "signed out".
public protocol SessionStorage: Sendable {
    /// Returns the data stored under `key`, or `nil` when there is none.
    func load(key: String) async throws -> Data?
    /// Stores `data` under `key`, replacing what was there.
    func save(_ data: Data, key: String) async throws
    /// Deletes what is stored under `key`; nothing stored is not an error.
    func remove(key: String) async throws
    /// Stores a secret (a private key, a vault) under `key`: kept on this device only, never in
    /// a backup or moved to another device, and read only as `protection` allows, where the
    /// storage can tell. By default, ``save(_:key:)``.
    func saveSecret(_ data: Data, key: String, protection: SecretProtection) async throws
    /// Reads a secret stored by ``saveSecret(_:key:protection:)``; `reason` is what a prompt for
    /// the user's presence shows. By default, ``load(key:)``.
    func loadSecret(key: String, reason: String) async throws -> Data?
}

extension SessionStorage {
    public func saveSecret(_ data: Data, key: String, protection: SecretProtection) async throws {
        try await save(data, key: key)
    }

    public func loadSecret(key: String, reason: String) async throws -> Data? {
        try await load(key: key)
    }
}

/// How a secret the SDK keeps (a software device key, a signer's key, a vault) is protected where
/// the storage can protect it (the keychain); a file or memory keeps it as it keeps sessions.
public enum SecretProtection: Sendable, Equatable {
    /// Readable after the device's first unlock since it started, on this device only: not in
    /// backups, not restored to another device (`kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`).
    case thisDevice
    /// On this device only, while it has a passcode, and every read asks for Face ID, Touch ID or
    /// the passcode (`.userPresence`).
    case userPresence
    /// On this device only, while it has a passcode, and every read asks for the fingerprints or
    /// face enrolled now; enrolling another one loses the secret (`.biometryCurrentSet`).
    case biometryCurrentSet
}

/// Keeps sessions in memory only.
public actor InMemorySessionStorage: SessionStorage {
    private var items: [String: Data] = [:]

    /// Creates an empty storage.
    public init() {}

    /// Returns the data stored under `key`.
    public func load(key: String) -> Data? { items[key] }
    /// Stores `data` under `key`.
    public func save(_ data: Data, key: String) { items[key] = data }
    /// Deletes what is stored under `key`.
    public func remove(key: String) { items[key] = nil }
}

/// Keeps each session in a file readable only by its owner (mode 0600) in a folder of its own
/// (mode 0700), written atomically.
public struct FileSessionStorage: SessionStorage {
    /// The folder that holds the session files.
    public let directory: URL

    /// - Parameter directory: defaults to ``defaultDirectory``.
    public init(directory: URL? = nil) {
        self.directory = directory ?? Self.defaultDirectory
    }

    /// `$XDG_CONFIG_HOME/latchkey` or `~/.config/latchkey` on macOS and Linux; on iOS, tvOS,
    /// watchOS, visionOS and Mac Catalyst, whose apps have no home folder of their own, `latchkey`
    /// in the app's Application Support folder.
    public static var defaultDirectory: URL {
        #if os(macOS) || os(Linux)
            let environment = ProcessInfo.processInfo.environment
            let base =
                environment["XDG_CONFIG_HOME"].map { URL(fileURLWithPath: $0) }
                ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config")
            return base.appendingPathComponent("latchkey")
        #else
            let support =
                FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
                ?? FileManager.default.temporaryDirectory
            return support.appendingPathComponent("latchkey")
        #endif
    }

    func file(_ key: String) -> URL {
        let safe = key.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." ? $0 : "_" }
        return directory.appendingPathComponent(String(safe) + ".json")
    }

    /// Reads the file for `key`; `nil` when there is none.
    public func load(key: String) async throws -> Data? {
        let url = file(key)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        do {
            return try Data(contentsOf: url)
        } catch {
            throw LatchkeyError(code: .storageUnavailable, message: "Cannot read \(url.path): \(error.localizedDescription)")
        }
    }

    /// Writes the file for `key` atomically, readable only by its owner.
    public func save(_ data: Data, key: String) async throws {
        let manager = FileManager.default
        do {
            try manager.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let url = file(key)
            let temporary = directory.appendingPathComponent(".\(UUID().uuidString).tmp")
            guard manager.createFile(atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600]) else {
                throw LatchkeyError(code: .storageUnavailable, message: "Cannot write \(temporary.path)")
            }
            // rename(2) replaces the old file atomically: a reader sees the old or the new session.
            guard rename(temporary.path, url.path) == 0 else {
                try? manager.removeItem(at: temporary)
                throw LatchkeyError(code: .storageUnavailable, message: "Cannot replace \(url.path)")
            }
        } catch let error as LatchkeyError {
            throw error
        } catch {
            throw LatchkeyError(code: .storageUnavailable, message: "Cannot write the session: \(error.localizedDescription)")
        }
    }

    /// Deletes the file for `key`, if any.
    public func remove(key: String) async throws {
        let url = file(key)
        if FileManager.default.fileExists(atPath: url.path) { try FileManager.default.removeItem(at: url) }
    }
}
