#if canImport(Observation)
    import Foundation
    import Latchkey
    import Observation

    /// What ``SignInView`` shows and does, in plain Swift: the screens from "welcome back" or
    /// "enter your address" to signed in, every fallback and refusal as a ``Notice``, and the
    /// offer of a stronger way in after a code. The view only draws it; apps with their own
    /// screens can drive it too.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
    @MainActor @Observable
    public final class SignInModel {
        /// The ways in the screen offers.
        public struct Methods: OptionSet, Sendable, Hashable {
            public let rawValue: Int
            public init(rawValue: Int) { self.rawValue = rawValue }
            /// A code by email (and the address field).
            public static let email = Methods(rawValue: 1 << 0)
            /// A code by SMS (and the number field), instead of email.
            public static let phone = Methods(rawValue: 1 << 1)
            /// A passkey.
            public static let passkey = Methods(rawValue: 1 << 2)
            /// Sign in with Apple.
            public static let apple = Methods(rawValue: 1 << 3)
            /// This device's key behind Face ID, when it holds one.
            public static let deviceKey = Methods(rawValue: 1 << 4)
            /// Email codes, passkeys, Sign in with Apple and the device key.
            public static let standard: Methods = [.email, .passkey, .apple, .deviceKey]

            /// The chain's ways in among these.
            var signInMethods: Set<SignInMethod> {
                var methods: Set<SignInMethod> = []
                if contains(.passkey) { methods.insert(.passkey) }
                if contains(.deviceKey) { methods.insert(.deviceKey) }
                return methods
            }
        }

        /// One screen.
        public enum Screen: Sendable, Equatable {
            /// Reading what the device remembers.
            case loading
            /// A returning user: greet them by their masked address and offer to continue.
            case welcomeBack(ReturningUser)
            /// The first-run screen: the address field and the other ways in.
            case choices
            /// A code was sent; ask for it.
            case code(CodeRequired)
            /// Signed in by code: offer a stronger way in for next time.
            case upgrade(SignInUpgrade, Session)
            /// Signed in.
            case signedIn(Session)
        }

        /// What to tell the user above the screen: why a stronger way in was passed over, or why
        /// the last request was refused. Each has its text in the strings catalogue.
        public enum Notice: Sendable, Equatable {
            /// This device's key was revoked (another device, a password change): a code was sent.
            case deviceKeyRevoked
            /// Face ID or Touch ID changed, so the device key is gone: a code was sent.
            case biometryChanged
            /// The passkey or Face ID was cancelled and the app asked to go on: a code was sent.
            case cancelledThenCode
            /// The server was out of reach.
            case offline
            /// The code was wrong; this many tries remain (`nil`: the server does not say).
            case wrongCode(attemptsRemaining: Int?)
            /// The code expired or was replaced: ask for another.
            case codeExpired
            /// Too many wrong codes: ask for another.
            case tooManyAttempts
            /// Too many requests: wait this many seconds (`nil`: the server does not say).
            case rateLimited(seconds: Int?)
            /// The address or number is not one the server accepts.
            case invalidAddress
            /// No account has this address (a sign-in that may not sign up).
            case unknownAccount
            /// Anything else: the server's or the SDK's message.
            case failed(String)
        }

        /// The screen to show.
        public private(set) var screen: Screen = .loading
        /// What to tell the user, until the next request.
        public private(set) var notice: Notice?
        /// A request is under way: disable the buttons, show progress.
        public private(set) var isWorking = false
        /// Whether this device holds a device key of the remembered user (shows "Continue with Face ID").
        public private(set) var deviceKeyHere = false
        /// The address or number being typed.
        public var address = ""
        /// The code being typed.
        public var code = ""
        /// Called once the user is signed in (and past the offer of a stronger way in). An app
        /// watching ``AuthClient/authStateChanges`` (or ``AuthModel``) needs none.
        @ObservationIgnored public var onSignedIn: (@MainActor (Session) -> Void)?

        /// The client.
        public let client: AuthClient
        /// The ways in offered.
        public let methods: Methods
        /// Whether an address nobody has creates an account (else ``Notice/unknownAccount``).
        public let allowsSignUp: Bool
        /// Whether to offer a passkey or the device key after a code.
        public let offersUpgrade: Bool

        /// A model over `client`.
        public init(client: AuthClient, methods: Methods = .standard, allowsSignUp: Bool = true, offersUpgrade: Bool = true) {
            self.client = client
            self.methods = methods
            self.allowsSignUp = allowsSignUp
            self.offersUpgrade = offersUpgrade
        }

        /// Whether the address field takes a phone number.
        public var usesPhone: Bool { methods.contains(.phone) && !methods.contains(.email) }

        /// Reads what this device remembers: ``Screen/welcomeBack(_:)`` for a returning user, else
        /// ``Screen/choices``.
        public func load() async {
            let hint = await client.returningUser()
            deviceKeyHere = hint?.deviceKeyEnrolledHere == true && methods.contains(.deviceKey)
            if let hint {
                address = (usesPhone ? hint.phone : hint.email) ?? hint.email ?? hint.phone ?? ""
                screen = .welcomeBack(hint)
            } else {
                screen = .choices
            }
        }

        /// Signs the returning user in through `steps` (the view passes the ones with SwiftUI's
        /// `AuthorizationController`), then by a code. A cancel stays on the welcome screen.
        public func continueAsReturningUser(steps: [ReturningUserStep], continueAfterCancel: Bool = false) async {
            let offered = steps.filter { methods.signInMethods.contains($0.method) }
            await work {
                switch try await self.client.signInReturningUser(
                    steps: offered, code: self.usesPhone ? .phone(.sms) : .email, continueAfterCancel: continueAfterCancel)
                {
                case .signedIn(let session, _): self.finish(session)
                case .codeRequired(let sent, let fallback):
                    self.code = ""
                    self.screen = .code(sent)
                    self.notice = Self.notice(for: fallback)
                case .cancelled: break
                case .unknownUser: self.screen = .choices
                }
            }
        }

        /// Leaves the welcome screen for the first-run one (the hint stays until someone signs in).
        public func useAnotherAccount() {
            address = ""
            notice = nil
            screen = .choices
        }

        /// Sends a code to ``address``.
        public func sendCode() async {
            let address = address.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !address.isEmpty else { return notice = .invalidAddress }
            await work {
                let sent =
                    self.usesPhone
                    ? try await self.client.requestSMSCode(phone: address, createUser: self.allowsSignUp)
                    : try await self.client.signInWithEmailCode(email: address, createUser: self.allowsSignUp)
                self.code = ""
                self.screen = .code(sent)
            }
        }

        /// Sends a code to the remembered address, skipping the passkey and the device key.
        public func sendCodeToReturningUser() async {
            await continueAsReturningUser(steps: [])
        }

        /// Submits ``code``; a wrong one keeps the screen with the tries left.
        public func submitCode() async {
            guard case .code(let sent) = screen else { return }
            let code = code.filter { !$0.isWhitespace }
            guard !code.isEmpty else { return }
            await work {
                let session = try await sent.submit(code: code)
                await self.signedIn(session, byCode: true)
            }
        }

        /// Sends another code to the same place.
        public func resend() async {
            guard case .code(let sent) = screen else { return }
            await work {
                self.screen = .code(try await sent.resend())
                self.code = ""
            }
        }

        /// Seconds until another code may be sent, `0` when it may now, `nil` off the code screen.
        public func secondsUntilResend(at now: Date = Date()) -> Int? {
            guard case .code(let sent) = screen else { return nil }
            return max(0, Int(sent.resendAvailableAt.timeIntervalSince(now).rounded(.up)))
        }

        /// Back from the code screen to where the user came from.
        public func back() {
            notice = nil
            code = ""
            Task { await load() }
        }

        /// Runs a sign-in of the screen's buttons (a passkey, Sign in with Apple, Face ID): the
        /// view passes the call with its `AuthorizationController`.
        public func signIn(_ attempt: @escaping @MainActor (AuthClient) async throws -> Session) async {
            await work { await self.signedIn(try await attempt(self.client), byCode: false) }
        }

        /// Adds the offered way in (the view passes `registerPasskey(using:)` or the enrolment),
        /// then finishes; refused or cancelled, the offer stays (with a notice) until declined.
        public func acceptUpgrade(_ add: @escaping @MainActor (AuthClient) async throws -> Void) async {
            guard case .upgrade(_, let session) = screen else { return }
            await work {
                try await add(self.client)
                self.finish(session)
            }
        }

        /// Declines the offer.
        public func declineUpgrade() {
            guard case .upgrade(_, let session) = screen else { return }
            finish(session)
        }

        private func finish(_ session: Session) {
            screen = .signedIn(session)
            onSignedIn?(session)
        }

        private func signedIn(_ session: Session, byCode: Bool) async {
            if byCode, offersUpgrade, let upgrade = await client.suggestedUpgrade(among: methods.signInMethods) {
                screen = .upgrade(upgrade, session)
            } else {
                finish(session)
            }
        }

        /// The notice a fallback deserves: the strongest way in that failed for a reason the user
        /// can act on.
        static func notice(for fallback: Fallback) -> Notice? {
            switch fallback.notable?.reason {
            case .deviceKeyRevoked: .deviceKeyRevoked
            case .biometryChanged: .biometryChanged
            case .userCancelled: .cancelledThenCode
            case .offline: .offline
            case .failed, .noPasskeyOnDevice, .noDeviceKeyOnDevice, nil: nil
            }
        }

        /// The words of `notice`, in `copy`'s language.
        public static func text(for notice: Notice, copy: SignInCopy) -> String {
            switch notice {
            case .deviceKeyRevoked: copy(.noticeDeviceKeyRevoked)
            case .biometryChanged: copy(.noticeBiometryChanged)
            case .cancelledThenCode: copy(.noticeCancelledThenCode)
            case .offline: copy(.noticeOffline)
            case .wrongCode(let left?): copy(.noticeWrongCodeCount, left)
            case .wrongCode(nil): copy(.noticeWrongCode)
            case .codeExpired: copy(.noticeCodeExpired)
            case .tooManyAttempts: copy(.noticeTooManyAttempts)
            case .rateLimited(let seconds?): copy(.noticeRateLimitedCount, seconds)
            case .rateLimited(nil): copy(.noticeRateLimited)
            case .invalidAddress: copy(.noticeInvalidAddress)
            case .unknownAccount: copy(.noticeUnknownAccount)
            case .failed(let message): message
            }
        }

        /// The notice an error deserves.
        static func notice(for error: LatchkeyError) -> Notice {
            if error.isInvalidCode { return .wrongCode(attemptsRemaining: error.attemptsRemaining ?? error.retryState?.attemptsRemaining) }
            if error.isCodeAttemptsExhausted { return .tooManyAttempts }
            if error.isCodeExpired { return .codeExpired }
            if error.isRateLimited { return .rateLimited(seconds: error.retryAfter) }
            if error.isNetworkError { return .offline }
            if error.isUserNotFound { return .unknownAccount }
            if error.isInvalidUsername || error.isInvalidPhoneNumber || error.code == .validationFailed { return .invalidAddress }
            return .failed(error.message)
        }

        private func work(_ request: @MainActor () async throws -> Void) async {
            guard !isWorking else { return }
            isWorking = true
            notice = nil
            defer { isWorking = false }
            do {
                try await request()
            } catch let error as LatchkeyError {
                if error.isUserCancelled { return }
                notice = Self.notice(for: error)
                if let retry = error.retryState { screen = .code(retry) }
            } catch is CancellationError {
                return
            } catch {
                notice = .failed(error.localizedDescription)
            }
        }
    }
#endif
