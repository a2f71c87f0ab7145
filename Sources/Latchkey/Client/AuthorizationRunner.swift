import Foundation

#if canImport(AuthenticationServices) && !os(watchOS) && !os(tvOS)
    import AuthenticationServices

    /// Runs one `ASAuthorizationController` request (Sign in with Apple, a passkey) and hands back
    /// what `read` takes from its credential.
    ///
    /// The delegate protocol is main-actor (`NS_SWIFT_UI_ACTOR` in current SDKs), so the credential,
    /// which is not Sendable, is read on the main actor where it arrives and only the Sendable
    /// result crosses to the caller. The runner keeps itself and the controller (whose delegate is
    /// weak) until the flow ends, and a cancelled task cancels the controller.
    @MainActor
    final class AuthorizationRunner<Value: Sendable>: NSObject, ASAuthorizationControllerDelegate {
        private var continuation: CheckedContinuation<Value, any Error>?
        private var controller: ASAuthorizationController?
        /// The controller holds its presentation context weakly: the runner keeps it (the key
        /// window's, made for this flow, has no other owner).
        private var presenter: (any ASAuthorizationControllerPresentationContextProviding)?
        private var keepAlive: AuthorizationRunner?
        /// Whether the caller's task was cancelled (the delegate runs outside that task).
        private var taskCancelled = false
        /// When a `preferImmediatelyAvailableCredentials` request started, to tell "no credential"
        /// from the user's cancel.
        private var immediateSince: ContinuousClock.Instant?
        private let read: @MainActor (any ASAuthorizationCredential) throws -> Value

        private init(read: @escaping @MainActor (any ASAuthorizationCredential) throws -> Value) {
            self.read = read
        }

        static func run(
            _ request: ASAuthorizationRequest, presentationContextProvider: any ASAuthorizationControllerPresentationContextProviding,
            preferImmediatelyAvailableCredentials: Bool = false,
            read: @escaping @MainActor (any ASAuthorizationCredential) throws -> Value
        ) async throws -> Value {
            try await run(
                [request], presentationContextProvider: presentationContextProvider,
                preferImmediatelyAvailableCredentials: preferImmediatelyAvailableCredentials, read: read)
        }

        /// Runs `requests` in one controller: the system sheet offers each (a security key, or a
        /// passkey on the device), and the one the user answers is read.
        static func run(
            _ requests: [ASAuthorizationRequest], presentationContextProvider: any ASAuthorizationControllerPresentationContextProviding,
            preferImmediatelyAvailableCredentials: Bool = false,
            read: @escaping @MainActor (any ASAuthorizationCredential) throws -> Value
        ) async throws -> Value {
            let runner = AuthorizationRunner(read: read)
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    runner.start(
                        requests, continuation: continuation, presentationContextProvider: presentationContextProvider,
                        preferImmediatelyAvailableCredentials: preferImmediatelyAvailableCredentials)
                }
            } onCancel: {
                Task { @MainActor in
                    runner.taskCancelled = true
                    runner.controller?.cancel()
                }
            }
        }

        private func start(
            _ requests: [ASAuthorizationRequest], continuation: CheckedContinuation<Value, any Error>,
            presentationContextProvider: any ASAuthorizationControllerPresentationContextProviding,
            preferImmediatelyAvailableCredentials: Bool
        ) {
            guard !Task.isCancelled else { return continuation.resume(throwing: CancellationError()) }
            self.continuation = continuation
            keepAlive = self
            let controller = ASAuthorizationController(authorizationRequests: requests)
            self.controller = controller
            controller.delegate = self
            presenter = presentationContextProvider
            controller.presentationContextProvider = presentationContextProvider
            if preferImmediatelyAvailableCredentials {
                immediateSince = .now
                controller.performRequests(options: .preferImmediatelyAvailableCredentials)
            } else {
                controller.performRequests()
            }
        }

        private func finish(_ result: Result<Value, any Error>) {
            continuation?.resume(with: result)
            continuation = nil
            controller = nil
            presenter = nil
            keepAlive = nil
        }

        func authorizationController(controller: ASAuthorizationController, didCompleteWithAuthorization authorization: ASAuthorization) {
            finish(Result { try read(authorization.credential) })
        }

        func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error) {
            finish(.failure(AppleFlowError.mapped(error, taskCancelled: taskCancelled, immediateSince: immediateSince)))
        }
    }

    /// The SDK's one error type for what Apple's sheets answer: the user's cancel is
    /// ``LatchkeyError/isUserCancelled``, and a sheet cancelled because the task was cancelled is
    /// `CancellationError`, as Swift concurrency expects; anything else passes as Apple gave it.
    ///
    /// With `preferImmediatelyAvailableCredentials`, Apple answers `.canceled` both when the device
    /// holds no credential (at once, no sheet shown) and when the user dismissed the sheet (its
    /// passkey sample says so). A `.canceled` sooner than anyone could see a sheet and dismiss it,
    /// or `.notInteractive`, is read as ``LatchkeyError/isNoCredentialOnDevice``.
    enum AppleFlowError {
        /// Faster than a sheet can slide up and a person tap Cancel.
        static let quickestHumanCancel: Duration = .milliseconds(800)

        static func mapped(_ error: any Error, taskCancelled: Bool = Task.isCancelled, immediateSince: ContinuousClock.Instant? = nil)
            -> any Error
        {
            if taskCancelled { return CancellationError() }
            // Apple's errors arrive as NSErrors of its domains (they bridge to these structs).
            let bridged = error as NSError
            let authorization = bridged.domain == ASAuthorizationError.errorDomain
            if let immediateSince, authorization,
                bridged.code == ASAuthorizationError.Code.notInteractive.rawValue
                    || (bridged.code == ASAuthorizationError.Code.canceled.rawValue && .now - immediateSince < quickestHumanCancel)
            {
                return LatchkeyError(code: .noCredentialOnDevice, message: "This device holds no passkey for this app")
            }
            let cancelled =
                (authorization && bridged.code == ASAuthorizationError.Code.canceled.rawValue)
                || (bridged.domain == ASWebAuthenticationSessionError.errorDomain
                    && bridged.code == ASWebAuthenticationSessionError.Code.canceledLogin.rawValue)
            return cancelled ? LatchkeyError(code: .userCancelled, message: "The user cancelled the sign-in") : error
        }
    }
#endif
