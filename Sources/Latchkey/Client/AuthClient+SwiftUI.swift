#if canImport(AuthenticationServices) && canImport(SwiftUI) && !os(watchOS) && !os(tvOS)
    import AuthenticationServices
    import Foundation
    import SwiftUI

    /// The sign-ins that show Apple's UI, with SwiftUI's own presenters: the environment's
    /// `AuthorizationController` (Sign in with Apple, passkeys) and `WebAuthenticationSession`
    /// (OAuth providers, hosted pages). No presentation anchor, no UIKit `self`:
    ///
    /// ```swift
    /// @Environment(\.authorizationController) private var authorizationController
    /// @Environment(\.webAuthenticationSession) private var webAuthenticationSession
    ///
    /// Button("Sign in with a passkey") {
    ///     Task { try await auth.signInWithPasskey(using: authorizationController) }
    /// }
    /// ```
    @available(iOS 16.4, macOS 13.3, *)
    extension AuthClient {
        /// Signs in with Apple through SwiftUI's `AuthorizationController`; as
        /// ``signInWithApple(presentationContextProvider:)`` otherwise.
        @MainActor
        @discardableResult
        public func signInWithApple(using controller: AuthorizationController) async throws -> Session {
            let nonce = SignInNonce()
            let answer = try await Self.perform(controller, Self.appleRequest(nonce), read: Self.appleAnswer)
            return try await signInWithIdToken(
                provider: .apple, idToken: answer.idToken, nonce: nonce.raw, data: answer.metadata,
                authorizationCode: answer.authorizationCode)
        }

        /// Signs in with a passkey through SwiftUI's `AuthorizationController`; as
        /// ``signInWithPasskey(presentationContextProvider:preferImmediatelyAvailableCredentials:)`` otherwise.
        @MainActor
        @discardableResult
        public func signInWithPasskey(using controller: AuthorizationController, preferImmediatelyAvailableCredentials: Bool = false)
            async throws -> Session
        {
            let options = try await passkeyAuthenticationOptions()
            let credential = try await Self.perform(
                controller, try Self.assertionRequest(options), immediately: preferImmediatelyAvailableCredentials, read: Self.assertion)
            return try await signInWithPasskey(challengeID: options.challengeID, credential: credential)
        }

        /// Creates and registers a passkey through SwiftUI's `AuthorizationController`; as
        /// ``registerPasskey(presentationContextProvider:)`` otherwise.
        @MainActor
        @discardableResult
        public func registerPasskey(using controller: AuthorizationController) async throws -> Passkey {
            let options = try await passkeyRegistrationOptions()
            let credential = try await Self.perform(controller, try Self.registrationRequest(options), read: Self.registration)
            return try await registerPasskey(challengeID: options.challengeID, credential: credential)
        }

        /// Signs in with `provider` in SwiftUI's `WebAuthenticationSession`. `redirectTo` is a custom
        /// scheme (`myapp://login`) or, from iOS 17.4 and macOS 14.4, an `https` universal link of
        /// the app's associated domains; either must be in the server's redirect allow list.
        /// `ephemeral` keeps no cookies: the user signs in to the provider afresh.
        @MainActor
        @discardableResult
        public func signInWithOAuth(
            provider: IDTokenProvider, redirectTo: URL, scopes: [String] = [], using session: WebAuthenticationSession,
            ephemeral: Bool = false
        ) async throws -> Session {
            let start = try await signInWithOAuthURL(provider: provider, redirectTo: redirectTo, scopes: scopes)
            let callback = try await Self.authenticate(start, redirectTo: redirectTo, in: session, ephemeral: ephemeral)
            return try await self.session(from: callback)
        }

        /// Opens a hosted page in SwiftUI's `WebAuthenticationSession`; as
        /// ``signInWithHostedPage(_:redirectTo:presentationContextProvider:ephemeral:)`` otherwise.
        @MainActor
        @discardableResult
        public func signInWithHostedPage(
            _ page: HostedPage = .signIn, redirectTo: URL, using session: WebAuthenticationSession, ephemeral: Bool = false
        ) async throws -> Session {
            let start = try await hostedPageURL(page, redirectTo: redirectTo)
            let callback = try await Self.authenticate(start, redirectTo: redirectTo, in: session, ephemeral: ephemeral)
            return try await self.session(from: callback)
        }

        /// Runs one request in `controller` and reads the credential on the main actor, where it
        /// arrives; Apple's cancel is `user_cancelled`, a cancelled task's `CancellationError`.
        @MainActor
        static func perform<Value: Sendable>(
            _ controller: AuthorizationController, _ request: ASAuthorizationRequest, immediately: Bool = false,
            read: @MainActor (any ASAuthorizationCredential) throws -> Value
        ) async throws -> Value {
            let result: ASAuthorizationResult
            let started = ContinuousClock.now
            do {
                result =
                    immediately
                    ? try await controller.performRequest(request, options: .preferImmediatelyAvailableCredentials)
                    : try await controller.performRequest(request)
            } catch {
                throw AppleFlowError.mapped(error, immediateSince: immediately ? started : nil)
            }
            switch result {
            case .appleID(let credential): return try read(credential)
            case .passkeyAssertion(let credential): return try read(credential)
            case .passkeyRegistration(let credential): return try read(credential)
            default: throw LatchkeyError(code: .invalidResponse, message: "The device returned another kind of credential")
            }
        }

        /// Shows `url` in `session` until the browser comes back to `redirectTo`.
        @MainActor
        static func authenticate(_ url: URL, redirectTo: URL, in session: WebAuthenticationSession, ephemeral: Bool) async throws -> URL {
            let browser: WebAuthenticationSession.BrowserSession? = ephemeral ? .ephemeral : nil
            do {
                if let callback = try WebCallback(redirectTo).https {
                    guard #available(iOS 17.4, macOS 14.4, *) else { throw WebCallback.httpsUnavailable }
                    return try await session.authenticate(
                        using: url, callback: .https(host: callback.host, path: callback.path), preferredBrowserSession: browser,
                        additionalHeaderFields: [:])
                }
                return try await session.authenticate(
                    using: url, callbackURLScheme: redirectTo.scheme ?? "", preferredBrowserSession: browser)
            } catch {
                throw AppleFlowError.mapped(error)
            }
        }
    }
#endif
