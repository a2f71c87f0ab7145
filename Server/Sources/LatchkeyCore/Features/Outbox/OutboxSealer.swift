import Crypto
import Foundation
import LatchkeyAPI

/// Seals outbox payloads with AES-GCM under a key derived from the server secret, so the codes
/// and links a queued message carries are never stored in the clear.
public struct OutboxSealer: Sendable {
    private let key: SymmetricKey

    public init(serverSecret: [UInt8]) {
        key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: serverSecret), info: Data("latchkey outbox v1".utf8), outputByteCount: 32)
    }

    /// The sealed form of `message`: base64url of nonce, ciphertext and tag.
    public func seal(_ message: EmailMessage) throws -> String {
        let plain = try JSONEncoder().encode(message)
        let box = try AES.GCM.seal(plain, using: key)
        guard let combined = box.combined else { throw OutboxSealError.unreadable }
        return Base64URL.encode(combined)
    }

    /// The message sealed in `payload`; throws when it was sealed under another key or damaged.
    public func open(_ payload: String) throws -> EmailMessage {
        // A message with large templates is well over the default limit for tokens.
        guard let data = Base64URL.decode(payload, maxLength: 16 << 20) else { throw OutboxSealError.unreadable }
        do {
            let plain = try AES.GCM.open(AES.GCM.SealedBox(combined: data), using: key)
            return try JSONDecoder().decode(EmailMessage.self, from: plain)
        } catch {
            throw OutboxSealError.unreadable
        }
    }
}

/// A payload that cannot be opened: damaged, or sealed under another server secret.
public enum OutboxSealError: Error, CustomStringConvertible, MailDeliveryFailure {
    case unreadable

    public var description: String { "the queued message cannot be decrypted (was the server secret replaced?)" }
    public var isPermanent: Bool { true }
}
