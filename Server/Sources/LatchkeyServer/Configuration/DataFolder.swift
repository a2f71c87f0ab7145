import Foundation
import LatchkeyAPI
import LatchkeyCore

/// The secret a server generates on first start and keeps in its data folder, readable only by
/// its owner: the server secret that keys refresh tokens and seals what the store keeps secret
/// (the signing keys among it).
public struct DataFolder: Sendable {
    public let path: String

    public init(path: String) { self.path = path }

    /// 32 random bytes, generated if missing.
    public func serverSecret() throws -> [UInt8] {
        try Self.read(loadOrCreate("server-secret") { Data(Base64URL.encode(SecureRandom.bytes(32)).utf8) }, path: path)
    }

    /// The folder's `server-secret` when it has one; creates nothing.
    public func existingServerSecret() throws -> [UInt8]? {
        let file = (path as NSString).appendingPathComponent("server-secret")
        guard let data = FileManager.default.contents(atPath: file), !data.isEmpty else { return nil }
        return try Self.read(data, path: path)
    }

    private static func read(_ data: Data, path: String) throws -> [UInt8] {
        guard let bytes = Base64URL.decode(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)),
            bytes.count >= 32
        else { throw ConfigurationError("\(path)/server-secret is damaged") }
        return bytes
    }

    func loadOrCreate(_ name: String, make: () -> Data) throws -> Data {
        let manager = FileManager.default
        try manager.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let file = (path as NSString).appendingPathComponent(name)
        if let existing = manager.contents(atPath: file), !existing.isEmpty { return existing }
        let data = make()
        guard manager.createFile(atPath: file, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw ConfigurationError("cannot write \(file)")
        }
        return data
    }
}
