#if canImport(Observation)
    import Foundation
    import Observation

    /// The auth state for SwiftUI: an observable model on the main actor, fed by
    /// ``AuthClient/authStateChanges``.
    ///
    /// ```swift
    /// @State var auth = AuthModel(client: AuthClient(url: serverURL))
    ///
    /// var body: some View {
    ///     switch auth.phase {
    ///     case .restoring: ProgressView()
    ///     case .signedOut: SignInView(client: auth.client)
    ///     case .signedIn: HomeView(user: auth.user)
    ///     }
    /// }
    /// ```
    ///
    /// It starts ``Phase/restoring`` and never shows a signed-out screen to a signed-in user:
    /// the phase changes only once the stored session has been read. A released model stops
    /// following the client.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
    @MainActor @Observable
    public final class AuthModel {
        /// Where the user stands.
        public enum Phase: Sendable, Equatable {
            /// The stored session is being read.
            case restoring
            /// Nobody is signed in.
            case signedOut
            /// Signed in, with this session.
            case signedIn(Session)
        }

        /// Where the user stands now.
        public private(set) var phase: Phase = .restoring
        /// The last change the client reported.
        public private(set) var lastEvent: AuthEvent?
        /// Why the last link handed to ``AuthClient/handle(_:)`` failed, until the next sign-in.
        public private(set) var linkError: LatchkeyError?
        /// The client the model follows: call its methods to sign in and out.
        public let client: AuthClient
        private nonisolated let following = TaskHandle()

        /// The signed-in user, `nil` while restoring or signed out.
        public var user: User? {
            if case .signedIn(let session) = phase { return session.user }
            return nil
        }

        /// Whether someone is signed in.
        public var isSignedIn: Bool { user != nil }

        /// A model that follows `client` from now on.
        public init(client: AuthClient) {
            self.client = client
            let changes = client.authStateChanges
            following.set(
                Task { [weak self] in
                    for await change in changes {
                        guard let self else { return }
                        self.apply(change)
                    }
                })
        }

        /// Takes in one change of the client's state.
        func apply(_ change: AuthStateChange) {
            lastEvent = change.event
            switch change.event {
            case .linkFailed:
                linkError = change.error
                return
            case .signedOut:
                phase = .signedOut
            default:
                phase = change.session.map(Phase.signedIn) ?? .signedOut
            }
            if change.session != nil { linkError = nil }
        }
    }
#endif
