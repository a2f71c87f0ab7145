import Crypto
import LatchkeyAPI

/// Checks a PKCE code verifier against its challenge (RFC 7636 §4.6), in constant time.
enum PKCEVerifier {
    static func matches(verifier: String, challenge: PKCEChallenge) -> Bool {
        let expected: [UInt8]
        switch challenge.method {
        case .s256: expected = Array(s256(verifier).utf8)
        case .plain: expected = Array(verifier.utf8)
        }
        return ConstantTime.equal(expected, challenge.challenge.utf8)
    }

    /// The S256 challenge of `verifier`: base64url of its SHA-256.
    static func s256(_ verifier: String) -> String {
        Base64URL.encode(SHA256.hash(data: Array(verifier.utf8)))
    }
}
