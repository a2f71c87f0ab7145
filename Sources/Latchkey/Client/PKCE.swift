import Crypto
import Foundation
import LatchkeyAPI

/// How emailed links bring the user back to the app.
public enum FlowType: Sendable {
    /// The link's redirect carries a one-time code that only this device, holding the verifier,
    /// can exchange (RFC 7636). Tokens never appear in a URL. The default.
    case pkce
    /// The link's redirect carries the tokens in the URL fragment (GoTrue's implicit flow).
    case implicit
}

/// PKCE verifiers and challenges, as supabase-swift makes them: 64 random bytes in base64url
/// (86 characters), challenged with S256.
enum PKCE {
    static func makeVerifier() -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64URL.encode((0..<64).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    static func challenge(for verifier: String) -> String {
        Base64URL.encode(Array(SHA256.hash(data: Array(verifier.utf8))))
    }
}

extension AuthClient {
    var verifierKey: String { configuration.storageKey + "-code-verifier" }

    /// A new challenge for a request that sends a link, with its verifier kept in storage, or
    /// `nil` for the implicit flow.
    func newChallenge(always: Bool = false) async -> (challenge: String, method: String)? {
        guard always || configuration.flowType == .pkce else { return nil }
        let verifier = PKCE.makeVerifier()
        try? await configuration.storage.save(Data(verifier.utf8), key: verifierKey)
        return (PKCE.challenge(for: verifier), "s256")
    }

    /// Exchanges the code a PKCE link delivered for a session, with the stored verifier.
    func exchange(code: String) async throws -> Session {
        let stored = try await configuration.storage.load(key: verifierKey)
        guard let verifier = stored.map({ String(decoding: $0, as: UTF8.self) }), !verifier.isEmpty else {
            throw LatchkeyError(
                code: .badCodeVerifier,
                message: "This link was requested on another device or app install: enter the code from the email instead")
        }
        let session = try await api.send(
            try api.request(
                "POST", "token", query: ["grant_type": "pkce"], body: PKCEGrantRequest(authCode: code, codeVerifier: verifier)),
            as: Session.self)
        try? await configuration.storage.remove(key: verifierKey)
        await setSession(session, event: .signedIn)
        return session
    }
}
