import Crypto
import Foundation
import LatchkeyAPI

/// Counter-based refresh tokens (GoTrue's "v2" design) keyed per session.
///
/// A token is base64url(`0x01` ‖ session id (16 bytes) ‖ counter (8 bytes, big-endian) ‖
/// HMAC-SHA256(key, everything before)). The key is HMAC-SHA256(server secret, session salt), so
/// nothing stored in the database alone can mint a token, and no token is stored at all: the
/// session row keeps only the counter of the one token currently valid.
public struct RefreshTokenCodec: Sendable {
    /// A decoded, authenticated token.
    public struct Token: Sendable, Equatable {
        public var sessionID: UUID
        public var counter: Int64
    }

    let serverSecret: SymmetricKey
    static let version: UInt8 = 1
    static let encodedLength = 1 + 16 + 8 + 32

    public init(serverSecret: [UInt8]) {
        self.serverSecret = SymmetricKey(data: serverSecret)
    }

    /// The token for `counter` in a session.
    public func encode(sessionID: UUID, counter: Int64, salt: [UInt8]) -> String {
        let prefix = Self.prefix(sessionID: sessionID, counter: counter)
        let mac = HMAC<SHA256>.authenticationCode(for: prefix, using: key(salt: salt))
        return Base64URL.encode(prefix + Array(mac))
    }

    /// Reads the session id and counter without authenticating them (to find the session).
    public func peek(_ token: String) -> Token? {
        guard token.utf8.count < 128, let bytes = Base64URL.decode(token), bytes.count == Self.encodedLength,
            bytes[0] == Self.version
        else { return nil }
        let uuid = bytes[1..<17].withUnsafeBytes { raw -> UUID in
            UUID(uuid: raw.loadUnaligned(as: uuid_t.self))
        }
        var counter: Int64 = 0
        for byte in bytes[17..<25] { counter = (counter << 8) | Int64(byte) }
        return Token(sessionID: uuid, counter: counter)
    }

    /// Whether `token` was minted for this session (constant-time MAC check).
    public func authenticate(_ token: String, salt: [UInt8]) -> Token? {
        guard let peeked = peek(token), let bytes = Base64URL.decode(token) else { return nil }
        let prefix = Array(bytes[0..<25])
        let mac = Array(bytes[25...])
        guard HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: prefix, using: key(salt: salt)) else {
            return nil
        }
        return peeked
    }

    func key(salt: [UInt8]) -> SymmetricKey {
        SymmetricKey(data: Array(HMAC<SHA256>.authenticationCode(for: salt, using: serverSecret)))
    }

    static func prefix(sessionID: UUID, counter: Int64) -> [UInt8] {
        var bytes: [UInt8] = [version]
        withUnsafeBytes(of: sessionID.uuid) { bytes.append(contentsOf: $0) }
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: counter >> Int64(shift))) }
        return bytes
    }
}
