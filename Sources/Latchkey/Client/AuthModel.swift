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
    ///     case .needsSecondFactor: TOTPView(mfa: auth.client.mfa)
    ///     case .recoveringPassword: NewPasswordView(client: auth.client)
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
            /// Signed in with a first factor by a user who has a verified second one: ask for it
            /// (`client.mfa`), and the phase becomes ``signedIn(_:)`` with the `aal2` session.
            case needsSecondFactor(Session)
            /// Signed in by a password-reset link or code: ask for a new password
            /// (`client.updatePassword(_:)`), and the phase becomes ``signedIn(_:)``.
            case recoveringPassword(Session)
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

        /// The session of any phase that has one.
        public var session: Session? {
            switch phase {
            case .signedIn(let session), .needsSecondFactor(let session), .recoveringPassword(let session): session
            case .restoring, .signedOut: nil
            }
        }

        /// The user of any phase that has a session, `nil` while restoring or signed out.
        public var user: User? { session?.user }

        /// Whether someone is fully signed in (not halfway: a second factor or a new password to give).
        public var isSignedIn: Bool {
            if case .signedIn = phase { return true }
            return false
        }

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

        /// Signed in, or halfway when the user has a verified factor the session has not used.
        static func phase(of session: Session) -> Phase {
            let level = AssuranceLevel(session: session)
            return level.current == .aal1 && level.next == .aal2 ? .needsSecondFactor(session) : .signedIn(session)
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
            case .passwordRecovery:
                phase = change.session.map(Phase.recoveringPassword) ?? .signedOut
            case .tokenRefreshed:
                // A refresh keeps a halfway phase halfway (with the new session).
                guard let session = change.session else { phase = .signedOut; break }
                switch phase {
                case .recoveringPassword: phase = .recoveringPassword(session)
                default: phase = Self.phase(of: session)
                }
            default:
                phase = change.session.map(Self.phase(of:)) ?? .signedOut
            }
            if change.session != nil { linkError = nil }
        }
    }
#endif
