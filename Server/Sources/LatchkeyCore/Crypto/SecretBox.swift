import Crypto
import Foundation
import LatchkeyAPI

/// Seals small secrets the server must keep (vault shares, signer recovery keys) with AES-GCM
/// under a key derived from the server secret for one purpose, so the database alone never holds
/// them in the clear. The purpose is bound in: a box sealed for one purpose does not open as another.
public struct SecretBox: Sendable {
    private let key: SymmetricKey

    /// A box for `purpose` (e.g. `latchkey vault share v1`) under `serverSecret`.
    public init(serverSecret: [UInt8], purpose: String) {
        key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: serverSecret), info: Data(purpose.utf8), outputByteCount: 32)
    }

    /// `secret` sealed, bound to `context` (e.g. the row's id): base64url of nonce, ciphertext, tag.
    public func seal(_ secret: [UInt8], context: String) throws -> String {
        let box = try AES.GCM.seal(secret, using: key, authenticating: Data(context.utf8))
        guard let combined = box.combined else { throw AuthError(.unexpectedFailure, "Cannot seal a secret") }
        return Base64URL.encode(combined)
    }

    /// The secret in `sealed`; throws when it was sealed under another key or context, or damaged.
    public func open(_ sealed: String, context: String) throws -> [UInt8] {
        guard let data = Base64URL.decode(sealed),
            let plain = try? AES.GCM.open(AES.GCM.SealedBox(combined: data), using: key, authenticating: Data(context.utf8))
        else { throw AuthError(.unexpectedFailure, "A stored secret cannot be opened (was the server secret replaced?)") }
        return Array(plain)
    }

    /// An HMAC-SHA256 of `message` under this box's key, base64url: a stored check value that
    /// the database alone cannot be used to test guesses against.
    public func mac(_ message: [UInt8]) -> String {
        Base64URL.encode(Data(HMAC<SHA256>.authenticationCode(for: message, using: key)))
    }
}
