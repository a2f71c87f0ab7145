import Crypto
import Foundation
import LatchkeyAPI

/// How one-time codes and link secrets are made and stored.
///
/// A code is hashed together with the user's id and kind, so that equal codes of different users
/// differ at rest; a link secret is 32 random bytes, sent base64url-encoded and stored as its
/// SHA-256 (made by ``RandomSource/linkSecret()``). Comparison goes through `SHA256.Digest`, whose equality is constant-time.
public enum OneTimeSecrets {
    /// The stored form of a link secret.
    public static func linkHash(_ secret: String) -> String {
        SHA256.hash(data: Array(secret.utf8)).hexString
    }

    /// The stored form of a code for one user.
    public static func codeHash(_ code: String, userID: UUID) -> String {
        codeDigest(code, userID: userID).hexString
    }

    /// Whether `code` is the code whose stored form is `storedHash`, in constant time.
    public static func codeMatches(_ code: String, userID: UUID, storedHash: String) -> Bool {
        let candidate = Array(codeDigest(code, userID: userID))
        guard let stored = hexBytes(storedHash) else { return false }
        return ConstantTime.equal(candidate, stored)
    }

    private static func codeDigest(_ code: String, userID: UUID) -> SHA256.Digest {
        SHA256.hash(data: Array("latchkey-otp:\(userID.lowercasedString):\(code)".utf8))
    }
}
