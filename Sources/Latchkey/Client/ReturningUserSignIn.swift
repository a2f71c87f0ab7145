import Foundation
import LatchkeyAPI

/// A way in for a returning user, strongest first.
public enum SignInMethod: String, Sendable, Codable, CaseIterable {
    /// A passkey this device holds (iCloud Keychain or the user's password manager).
    case passkey
    /// This device's key, behind Face ID, Touch ID or the passcode.
    case deviceKey
    /// A code sent to the remembered address or number.
    case code
}

/// Why ``AuthClient/signInReturningUser(steps:code:continueAfterCancel:)`` passed a stronger way
/// in over.
public enum FallbackReason: Sendable, Equatable {
    /// This device holds no passkey for the app (the system showed no sheet).
    case noPasskeyOnDevice
    /// This device holds no device key of the user's.
    case noDeviceKeyOnDevice
    /// The user dismissed the sheet or the biometric prompt.
    case userCancelled
    /// The device key can never be unlocked again: Face ID or Touch ID were re-enrolled, or the
    /// device was restored from a backup. The SDK has forgotten it; enrol it again after the code.
    case biometryChanged
    /// The server no longer accepts the device key (revoked from another device, the password
    /// changed, a global sign-out). The SDK has forgotten it.
    case deviceKeyRevoked
    /// The server could not be reached.
    case offline
    /// Anything else, as the step threw it (passkeys off on the server, the enclave busy…).
    case failed(LatchkeyError)

    /// How a step's error reads as a reason: the SDK's codes, whoever threw them.
    init(_ error: LatchkeyError, method: SignInMethod) {
        switch error.code {
        case .userCancelled: self = .userCancelled
        case .noCredentialOnDevice: self = method == .passkey ? .noPasskeyOnDevice : .noDeviceKeyOnDevice
        case .deviceKeyMissing: self = .biometryChanged
        case .deviceKeyNotFound: self = .deviceKeyRevoked
        case .networkError: self = .offline
        default: self = .failed(error)
        }
    }
}

/// Why each stronger way in was passed over, in the order they were tried.
public struct Fallback: Sendable, Equatable {
    /// One way in that was tried (or looked at) and passed over.
    public struct Skip: Sendable, Equatable {
        /// The way in.
        public var method: SignInMethod
        /// Why it was passed over.
        public var reason: FallbackReason

        /// A skip, for test doubles.
        public init(method: SignInMethod, reason: FallbackReason) {
            self.method = method
            self.reason = reason
        }
    }

    /// The ways in passed over, strongest first.
    public var skipped: [Skip]

    /// A fallback, for test doubles.
    public init(skipped: [Skip] = []) { self.skipped = skipped }

    /// Why `method` was passed over, or `nil` when it was not tried.
    public func reason(for method: SignInMethod) -> FallbackReason? {
        skipped.first { $0.method == method }?.reason
    }

    /// The reason worth telling the user, if any: the first one that is not simply "this device
    /// holds none" (a revoked key, changed biometrics, a cancel, no network).
    public var notable: Skip? {
        skipped.first { $0.reason != .noPasskeyOnDevice && $0.reason != .noDeviceKeyOnDevice }
    }
}

/// What ``AuthClient/signInReturningUser(steps:code:continueAfterCancel:)`` came to.
public enum ReturningUserSignIn: Sendable {
    /// Signed in, without a code.
    case signedIn(Session, method: SignInMethod)
    /// No stronger way in worked (``Fallback`` says why): a code went to the remembered address
    /// or number; ask for it and ``CodeRequired/submit(code:)`` it.
    case codeRequired(CodeRequired, fallback: Fallback)
    /// The user dismissed a sheet or prompt, and the chain stopped there (nothing was sent):
    /// show the sign-in choices.
    case cancelled(SignInMethod, fallback: Fallback)
    /// Nobody is remembered on this device (or the remembered account is gone): show the
    /// first-run screen.
    case unknownUser
}

/// Where the code of the last step goes: the preferred one when the device remembers it, else
/// the other.
public enum CodeFallback: Sendable, Equatable {
    /// The remembered email address (else the number, by SMS).
    case email
    /// The remembered number, by SMS or WhatsApp (else the email address).
    case phone(SMSChannel)
}

/// After a code, the strongest way in this device could add: ``AuthClient/suggestedUpgrade(steps:)``.
public enum SignInUpgrade: String, Sendable, Equatable {
    /// Create a passkey (``AuthClient/registerPasskey(presentationContextProvider:)``).
    case registerPasskey
    /// Enrol this device's key (``DeviceKeys/enroll(name:)``).
    case enrollDeviceKey
}

/// One way in the returning-user chain tries before a code: a passkey, the device key, or the
/// app's own. A step signs in or throws; the chain reads the SDK's error codes as reasons
/// (``LatchkeyError/ErrorCode/noCredentialOnDevice``, `user_cancelled`, `device_key_missing`,
/// `device_key_not_found`, `network_error`).
public struct ReturningUserStep: Sendable {
    /// The way in.
    public let method: SignInMethod
    let attempt: @Sendable (AuthClient, ReturningUser) async throws -> Session

    /// A step of the app's own (or a test double): `attempt` signs in or throws.
    public init(method: SignInMethod, attempt: @escaping @Sendable (AuthClient, ReturningUser) async throws -> Session) {
        self.method = method
        self.attempt = attempt
    }

    /// This device's key, with one biometric prompt showing `reason`. Skipped without a prompt
    /// when the device holds no key of the remembered user's.
    public static func deviceKey(reason: String = "Sign in") -> ReturningUserStep {
        ReturningUserStep(method: .deviceKey) { auth, user in
            guard let enrollment = try await auth.loadEnrollment(), enrollment.userID == user.userID.uuidString.lowercased() else {
                throw LatchkeyError(code: .noCredentialOnDevice, message: "This device holds no device key of this user's")
            }
            return try await auth.signInWithDeviceKey(reason: reason)
        }
    }

    /// The steps tried when the app names none: a passkey where the platform has them (Apple's,
    /// with no sheet when the device holds none), then the device key.
    public static var standard: [ReturningUserStep] {
        #if canImport(AuthenticationServices) && !os(watchOS) && !os(tvOS)
            if #available(iOS 16, macOS 13, visionOS 1, *) { return [.passkey(), .deviceKey()] }
        #endif
        return [.deviceKey()]
    }
}

extension AuthClient {
    /// Signs the remembered user back in with the strongest way in this device holds: each of
    /// `steps` in turn (by default a passkey, with no sheet when the device has none, then the
    /// device key with one biometric prompt), then a code to the remembered address or number.
    ///
    /// ```swift
    /// switch try await auth.signInReturningUser() {
    /// case .signedIn: break                                   // authStateChanges moves the app on
    /// case .codeRequired(let sent, let fallback): askForCode(sent, why: fallback.notable)
    /// case .cancelled: showSignInChoices()
    /// case .unknownUser: showWelcome()
    /// }
    /// ```
    ///
    /// A cancel by the user stops the chain (nothing is sent) unless `continueAfterCancel`. Asks
    /// the server nothing it could not be asked without the hint: a passkey and a device key are
    /// proven by the device, and the code goes out as ``signInWithEmailCode(email:createUser:redirectTo:)``
    /// with `createUser: false` would. A remembered account the server no longer knows answers
    /// ``ReturningUserSignIn/unknownUser`` and is forgotten. Throws when the code cannot be sent
    /// (offline, rate-limited) and every stronger way failed.
    ///
    /// A call made while another is under way (a double tap, a view appearing twice) waits for
    /// it and gets its answer: one prompt, one code. Cancelling the first caller's task cancels
    /// the chain.
    public func signInReturningUser(
        steps: [ReturningUserStep] = ReturningUserStep.standard, code: CodeFallback = .email, continueAfterCancel: Bool = false
    ) async throws -> ReturningUserSignIn {
        if let running = returningUserTask { return try await running.value }
        let task = Task { try await self.returningUserChain(steps: steps, code: code, continueAfterCancel: continueAfterCancel) }
        returningUserTask = task
        defer { returningUserTask = nil }
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }

    private func returningUserChain(steps: [ReturningUserStep], code: CodeFallback, continueAfterCancel: Bool) async throws
        -> ReturningUserSignIn
    {
        // The stored hint: the device-key step reads the enrollment itself, once.
        guard let user = await storedHint() else { return .unknownUser }
        var fallback = Fallback()
        for step in steps {
            try Task.checkCancellation()
            do {
                let session = try await step.attempt(self, user)
                return .signedIn(session, method: step.method)
            } catch let error as LatchkeyError {
                let reason = FallbackReason(error, method: step.method)
                fallback.skipped.append(.init(method: step.method, reason: reason))
                if reason == .userCancelled && !continueAfterCancel { return .cancelled(step.method, fallback: fallback) }
            }
        }
        try Task.checkCancellation()
        do {
            let channel: SMSChannel? = if case .phone(let channel) = code { channel } else { nil }
            if let phone = user.phone, channel != nil || user.email == nil {
                return .codeRequired(
                    try await requestSMSCode(phone: phone, createUser: false, channel: channel ?? .sms), fallback: fallback)
            }
            guard let email = user.email else { return .unknownUser }
            return .codeRequired(try await signInWithEmailCode(email: email, createUser: false), fallback: fallback)
        } catch let error as LatchkeyError where error.isUserNotFound {
            await forgetReturningUser()
            return .unknownUser
        }
    }

    /// Completion-handler form of ``signInReturningUser(steps:code:continueAfterCancel:)``.
    public nonisolated func signInReturningUser(
        steps: [ReturningUserStep] = ReturningUserStep.standard, code: CodeFallback = .email, continueAfterCancel: Bool = false,
        completion: @escaping @MainActor @Sendable (Result<ReturningUserSignIn, any Error>) -> Void
    ) {
        completeOnMain(completion) {
            try await self.signInReturningUser(steps: steps, code: code, continueAfterCancel: continueAfterCancel)
        }
    }

    /// The strongest way in this device could add for the signed-in user, among `steps`: a
    /// passkey when none was registered from here, else a device key when none is enrolled here;
    /// `nil` when it holds the strongest already (or nobody is signed in). Offer it after a code.
    public func suggestedUpgrade(steps: [ReturningUserStep] = ReturningUserStep.standard) async -> SignInUpgrade? {
        await suggestedUpgrade(among: Set(steps.map(\.method)))
    }

    /// ``suggestedUpgrade(steps:)`` among `methods` (``SignInMethod/passkey``,
    /// ``SignInMethod/deviceKey``) the app offers.
    public func suggestedUpgrade(among methods: Set<SignInMethod>) async -> SignInUpgrade? {
        guard let session = stored, !session.user.isAnonymous else { return nil }
        let hint = await storedHint()
        if methods.contains(.passkey), !(hint?.userID == session.user.id && hint?.passkeyRegisteredHere == true) {
            return .registerPasskey
        }
        if methods.contains(.deviceKey), (try? await loadEnrollment())?.userID != session.user.id.uuidString.lowercased() {
            return .enrollDeviceKey
        }
        return nil
    }
}
