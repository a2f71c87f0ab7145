import Foundation

#if canImport(AuthenticationServices) && !os(watchOS) && !os(tvOS)
    import AuthenticationServices

    /// Runs one `ASAuthorizationController` request (Sign in with Apple, a passkey) and hands
    /// back its credential. Kept alive while the controller, which holds its delegate weakly, runs.
    @MainActor
    final class AuthorizationRunner: NSObject, ASAuthorizationControllerDelegate {
        private var continuation: CheckedContinuation<any ASAuthorizationCredential, any Error>?
        private static var running: Set<AuthorizationRunner> = []

        static func run(
            _ request: ASAuthorizationRequest, presentationContextProvider: any ASAuthorizationControllerPresentationContextProviding,
            preferImmediatelyAvailableCredentials: Bool = false
        ) async throws -> any ASAuthorizationCredential {
            let delegate = AuthorizationRunner()
            running.insert(delegate)
            defer { running.remove(delegate) }
            return try await withCheckedThrowingContinuation { continuation in
                delegate.continuation = continuation
                let controller = ASAuthorizationController(authorizationRequests: [request])
                controller.delegate = delegate
                controller.presentationContextProvider = presentationContextProvider
                if preferImmediatelyAvailableCredentials {
                    controller.performRequests(options: .preferImmediatelyAvailableCredentials)
                } else {
                    controller.performRequests()
                }
            }
        }

        nonisolated func authorizationController(
            controller: ASAuthorizationController, didCompleteWithAuthorization authorization: ASAuthorization
        ) {
            let credential = authorization.credential
            MainActor.assumeIsolated {
                continuation?.resume(returning: credential)
                continuation = nil
            }
        }

        nonisolated func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error) {
            MainActor.assumeIsolated {
                continuation?.resume(throwing: error)
                continuation = nil
            }
        }
    }
#endif
