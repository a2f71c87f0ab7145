import Crypto
import Foundation

#if canImport(AuthenticationServices)
    import AuthenticationServices
#endif

/// A Sign in with Apple nonce: the raw value goes to the server, its SHA-256 (hex) to Apple,
/// which puts it in the id token; the server checks that they match, so a token caught in
/// transit cannot be replayed.
public struct SignInNonce: Sendable, Equatable {
    /// What the server is sent.
    public let raw: String
    /// What Apple (or Google) is given: lowercase hex of the raw nonce's SHA-256.
    public var hashed: String { SHA256.hash(data: Data(raw.utf8)).map { String(format: "%02x", $0) }.joined() }

    /// A new nonce of 32 random bytes.
    public init() {
        var generator = SystemRandomNumberGenerator()
        raw = Base64URL.encode((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// A given nonce (from an app that made its own).
    public init(raw: String) { self.raw = raw }
}

extension AuthClient {
    /// The metadata a first Sign in with Apple carries: the name Apple tells the app only then.
    static func appleMetadata(givenName: String?, familyName: String?) -> [String: JSONValue]? {
        let full = [givenName, familyName].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
        return full.isEmpty ? nil : ["full_name": .string(full), "name": .string(full)]
    }
}

#if canImport(AuthenticationServices) && !os(watchOS) && !os(tvOS)
    /// What a Sign in with Apple credential gives the server.
    struct AppleAnswer: Sendable {
        var idToken: String
        var metadata: [String: JSONValue]?
        /// Sent to the server, which exchanges it for Apple's refresh token and revokes that when
        /// the account is deleted (as Apple requires).
        var authorizationCode: String?
    }

    extension AuthClient {
        /// Signs in with Apple on the device: shows Apple's sheet asking for the name and email,
        /// sends Apple the nonce's hash and the server the raw nonce with the id token, and keeps
        /// the name (which Apple gives only on the first sign-in) in the user's metadata.
        ///
        /// In SwiftUI, ``signInWithApple(using:)`` takes the environment's `AuthorizationController`
        /// instead of a presentation context.
        @MainActor
        @discardableResult
        public func signInWithApple(
            presentationContextProvider: (any ASAuthorizationControllerPresentationContextProviding)? = nil
        ) async throws -> Session {
            let nonce = SignInNonce()
            let answer = try await AuthorizationRunner.run(
                Self.appleRequest(nonce), presentationContextProvider: presentationContextProvider ?? KeyWindowPresenter(),
                read: Self.appleAnswer)
            return try await signInWithIdToken(
                provider: .apple, idToken: answer.idToken, nonce: nonce.raw, data: answer.metadata,
                authorizationCode: answer.authorizationCode)
        }

        /// Apple's request for the name and email, with the nonce's hash.
        @MainActor
        static func appleRequest(_ nonce: SignInNonce) -> ASAuthorizationAppleIDRequest {
            let request = ASAuthorizationAppleIDProvider().createRequest()
            request.requestedScopes = [.fullName, .email]
            request.nonce = nonce.hashed
            return request
        }

        /// The id token and first-time name an Apple credential carries.
        @MainActor
        static func appleAnswer(_ credential: any ASAuthorizationCredential) throws -> AppleAnswer {
            guard let credential = credential as? ASAuthorizationAppleIDCredential else {
                throw LatchkeyError(code: .invalidResponse, message: "Apple returned another kind of credential")
            }
            guard let tokenData = credential.identityToken, let idToken = String(data: tokenData, encoding: .utf8) else {
                throw LatchkeyError(code: .invalidResponse, message: "Apple returned no identity token")
            }
            return AppleAnswer(
                idToken: idToken,
                metadata: Self.appleMetadata(givenName: credential.fullName?.givenName, familyName: credential.fullName?.familyName),
                authorizationCode: credential.authorizationCode.flatMap { String(data: $0, encoding: .utf8) })
        }
    }
#endif
