import Crypto
import Foundation
import LatchkeyAPI

/// The server secret: keys refresh tokens and seals what the database keeps secret, so every
/// instance on one database needs the same one.
public enum ServerSecret {
    /// The fewest bytes a server secret has.
    public static let minimumBytes = 32

    /// The secret in `text`: base64url or standard base64 (`openssl rand -base64 32`) of at least
    /// 32 bytes, surrounding white space ignored; `nil` for anything else.
    public static func parse(_ text: String) -> [UInt8]? {
        var value = text.trimmingCharacters(in: .whitespacesAndNewlines)
        value = value.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while value.hasSuffix("=") { value.removeLast() }
        guard let bytes = Base64URL.decode(value), bytes.count >= minimumBytes else { return nil }
        return bytes
    }

    /// The server secret of an instance configured with an HS256 JWT secret and no server secret
    /// of its own (GoTrue's configuration, where `GOTRUE_JWT_SECRET` is required): HKDF-SHA256 of
    /// the JWT secret under a label of its own, so that every instance given that configuration
    /// agrees without a shared folder. Whoever holds the JWT secret can already mint any access
    /// token; docs/scaling.md says what else it then opens.
    public static func derived(fromJWTSecret jwtSecret: String) -> [UInt8] {
        let key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: Array(jwtSecret.utf8)), salt: Array("latchkey".utf8),
            info: Array("latchkey server secret from the JWT secret v1".utf8), outputByteCount: 32)
        return key.withUnsafeBytes { Array($0) }
    }

    /// What the database keeps to recognise the secret: an HMAC-SHA256 under a key derived from it
    /// for this purpose alone. It tells whether two instances share a secret; it cannot be turned
    /// back into the secret, and a guess at the secret must be 32 random bytes.
    public static func verifier(_ secret: [UInt8]) -> String {
        SecretBox(serverSecret: secret, purpose: "latchkey server-secret verifier v1").mac(Array("verifier".utf8))
    }

    /// Whether `a` and `b` are the same verifier, compared in constant time.
    public static func matches(_ a: String, _ b: String) -> Bool {
        ConstantTime.equal(a, b)
    }
}
