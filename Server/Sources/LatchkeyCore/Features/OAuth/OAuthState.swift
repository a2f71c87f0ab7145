import Crypto
import Foundation
import LatchkeyAPI

/// The `state` of a redirect to a provider: what the callback needs to finish the flow, sealed
/// (AES-GCM under a key derived from the server secret), so it is opaque to the browser and
/// cannot be forged or changed, and short-lived. Its `id` is spent once at the callback, and only
/// by the browser that started the flow: the state carries the hash of a random cookie set on that
/// browser (``binding``), which the callback requires.
public struct OAuthState: Codable, Sendable, Equatable {
    /// A random id, spent at the callback: a state is good once.
    public var id: String
    /// The provider's name (`google`, `apple`, `github`, …).
    public var provider: String
    /// Where the app wants the user back (already checked against the allow list).
    public var redirectTo: String
    /// The app's PKCE challenge: with one, the callback answers `?code=` for the app to exchange.
    public var codeChallenge: String?
    public var codeChallengeMethod: String?
    /// The PKCE verifier Latchkey sent the provider the challenge of.
    public var providerVerifier: String
    /// The raw nonce whose SHA-256 the provider must put in the id token.
    public var nonce: String
    /// The signed-in user and session a manual link is for.
    public var linking: LinkingSession?
    /// The SHA-256 (base64url) of the browser's binding cookie; `nil` only in a link ticket
    /// that no browser has opened yet.
    public var binding: String?
    /// The scopes the app asked for, kept in a link ticket until its browser opens it.
    public var scopes: String?
    /// Seconds since 1970 when the state stops being accepted.
    public var expiresAt: Double

    enum CodingKeys: String, CodingKey {
        case id = "i"
        case provider = "p"
        case redirectTo = "r"
        case codeChallenge = "c"
        case codeChallengeMethod = "m"
        case providerVerifier = "v"
        case nonce = "n"
        case linking = "l"
        case binding = "b"
        case scopes = "s"
        case expiresAt = "e"
    }

    /// The box states are sealed in.
    public static func box(serverSecret: [UInt8]) -> SecretBox {
        SecretBox(serverSecret: serverSecret, purpose: "latchkey oauth state v1")
    }

    /// The state as the `state` parameter.
    public func sealed(in box: SecretBox, context: String = "state") throws -> String {
        try box.seal(Array(try JSONEncoder().encode(self)), context: context)
    }

    /// The state `text` carries; `nil` when it was not sealed by this server (or is damaged).
    public static func opened(_ text: String, in box: SecretBox, context: String = "state") -> OAuthState? {
        guard text.utf8.count <= 4096, let plain = try? box.open(text, context: context) else { return nil }
        return try? JSONDecoder().decode(OAuthState.self, from: Data(plain))
    }

    /// What the state stores of a browser's binding cookie `value`.
    public static func bindingHash(_ value: String) -> String {
        Base64URL.encode(Array(SHA256.hash(data: Array(value.utf8))))
    }

    /// Whether `cookie` is the binding cookie of the browser that started this flow.
    public func isBound(to cookie: String?) -> Bool {
        guard let binding, let cookie, !cookie.isEmpty, cookie.utf8.count <= 256 else { return false }
        return ConstantTime.equal(Array(binding.utf8), Array(Self.bindingHash(cookie).utf8))
    }
}
