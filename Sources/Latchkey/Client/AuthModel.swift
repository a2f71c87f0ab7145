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
    ///     case .needsSecondFactor: SecondFactorView(auth: auth)   // auth.secondFactors, challenge(factor:), verify(code:)
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

        /// The user's verified factors while the phase is ``Phase/needsSecondFactor(_:)``, as the
        /// session's user lists them: authenticator apps first, then security keys, then phones.
        /// Empty in every other phase.
        public var secondFactors: [Factor] {
            guard case .needsSecondFactor(let session) = phase else { return [] }
            return MFA.usable(session.user.factors ?? [])
        }

        /// The challenge ``challenge(factor:channel:)`` opened, which ``verify(code:)`` answers;
        /// `nil` once the phase moves on.
        public private(set) var secondFactorChallenge: SecondFactorChallenge?

        /// Opens a challenge for one of ``secondFactors``: a phone factor's code is sent now (over
        /// `channel`); a security key's challenge is answered by
        /// ``MFA/verifyWithSecurityKey(_:presentationContextProvider:)`` (Apple platforms).
        /// Outside ``Phase/needsSecondFactor(_:)`` it throws ``LatchkeyError/isNoSecondFactorPending``.
        public func challenge(factor: Factor, channel: SMSChannel? = nil) async throws {
            guard case .needsSecondFactor = phase else { throw Self.nothingPending }
            secondFactorChallenge = try await client.mfa.begin(factor, channel: channel)
        }

        /// Verifies a typed code: against the open challenge, or, with none open (an authenticator
        /// app needs no message first), against a new challenge of the user's first TOTP factor.
        /// The phase becomes ``Phase/signedIn(_:)``; a wrong code throws
        /// ``LatchkeyError/isMFAVerificationFailed`` and the challenge stays open.
        public func verify(code: String) async throws {
            guard case .needsSecondFactor = phase else { throw Self.nothingPending }
            var pending = secondFactorChallenge
            if pending?.takesCode != true, let totp = secondFactors.first(where: { $0.factorType == .totp }) {
                pending = try await client.mfa.begin(totp)
                secondFactorChallenge = pending
            }
            guard let pending, pending.takesCode else { throw Self.nothingPending }
            settle(try await pending.verify(code: code))
        }

        /// Uses one of the user's recovery codes in place of the second factor (a lost phone or
        /// key): the phase becomes ``Phase/signedIn(_:)`` and the owner is emailed.
        public func verifyRecoveryCode(_ code: String) async throws {
            guard case .needsSecondFactor = phase else { throw Self.nothingPending }
            settle(try await client.mfa.verifyRecoveryCode(code))
        }

        /// Takes in the `aal2` session a verification answered, without waiting for the client's
        /// announcement of it (which sets the same phase).
        func settle(_ session: Session) {
            phase = Self.phase(of: session)
            secondFactorChallenge = nil
        }

        static var nothingPending: LatchkeyError {
            LatchkeyError(code: .noSecondFactorPending, message: "No second factor is waiting to be verified")
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
            if case .needsSecondFactor = phase {} else { secondFactorChallenge = nil }
        }
    }
#endif
