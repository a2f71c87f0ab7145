import Foundation

/// Where a one-time code was sent.
public enum CodeChannel: String, Sendable, Codable {
    /// By email.
    case email
    /// By SMS.
    case sms
    /// By WhatsApp.
    case whatsapp
}

/// What a code flow is for, which decides the errors it may report.
public enum CodeIntent: String, Sendable, Codable {
    /// Sign in, or create the account when none exists (GoTrue's default).
    case signInOrSignUp
    /// Sign in only: an unknown address fails with ``LatchkeyError/isUserNotFound``.
    case signIn
    /// Create an account only: a known address fails with ``LatchkeyError/isUserAlreadyExists``.
    case signUp
}

/// A code is on its way and the flow waits for it (MSAL's `CodeRequiredState`).
///
/// ```swift
/// var state = try await auth.signInWithEmailCode(email: email)
/// while true {
///     do {
///         return try await state.submit(code: await askForCode(length: state.codeLength))
///     } catch let error as LatchkeyError where error.isInvalidCode {
///         if let retry = error.retryState { state = retry }  // \(retry.attemptsRemaining ?? 0) attempts left
///     }
/// }
/// ```
///
/// It is `Codable`: keep it while the user reads their mail, and after a relaunch attach the
/// decoded state to the client with ``AuthClient/resume(_:)`` before submitting.
public struct CodeRequired: Sendable, Codable, Equatable {
    /// What a code proves, which decides how it is verified and resent.
    enum Purpose: String, Sendable, Codable {
        /// Sign in (or up) by code.
        case signIn
        /// Confirm the address of a password sign-up.
        case confirmation
        /// Reset a forgotten password; the session it gives is for ``AuthClient/updatePassword(_:currentPassword:nonce:)``.
        case recovery
        /// Add or change the signed-in user's phone number.
        case phoneChange
        /// Add an email address to the signed-in user.
        case emailLink
    }

    /// The address the code was sent to; empty for SMS codes.
    public let email: String
    /// The phone number the code was sent to, for SMS codes.
    public let phone: String?
    /// The masked address to show, e.g. `a***@example.com`.
    public let sentTo: String
    /// Where the code was sent.
    public let channel: CodeChannel
    /// Digits in the code.
    public let codeLength: Int
    /// When the code stops working; `Date.distantFuture` when the server did not say (see
    /// ``isExpiryKnown``).
    public let expiresAt: Date
    /// When ``resend()`` may be called.
    public let resendAvailableAt: Date
    /// Wrong submissions the code survives, when the server says.
    public let attemptsRemaining: Int?
    /// What the flow is for.
    public let intent: CodeIntent

    /// The client that submits and resends; `nil` in a decoded state until ``AuthClient/resume(_:)``.
    var client: AuthClient?
    let redirectTo: URL?
    let purpose: Purpose

    enum CodingKeys: String, CodingKey {
        case email, phone, sentTo, channel, codeLength, expiresAt, resendAvailableAt, attemptsRemaining, intent, redirectTo, purpose
    }

    init(
        email: String, phone: String? = nil, sentTo: String, channel: CodeChannel, codeLength: Int, expiresAt: Date,
        resendAvailableAt: Date, attemptsRemaining: Int?, intent: CodeIntent, client: AuthClient?, redirectTo: URL?,
        purpose: Purpose = .signIn
    ) {
        self.email = email
        self.phone = phone
        self.sentTo = sentTo
        self.channel = channel
        self.codeLength = codeLength
        self.expiresAt = expiresAt
        self.resendAvailableAt = resendAvailableAt
        self.attemptsRemaining = attemptsRemaining
        self.intent = intent
        self.client = client
        self.redirectTo = redirectTo
        self.purpose = purpose
    }

    /// A sign-in code state attached to no client, for SwiftUI previews and tests; attach it with
    /// ``AuthClient/resume(_:)`` to submit.
    public init(
        email: String, phone: String? = nil, sentTo: String, channel: CodeChannel, codeLength: Int, expiresAt: Date,
        resendAvailableAt: Date, attemptsRemaining: Int? = nil, intent: CodeIntent = .signInOrSignUp
    ) {
        self.init(
            email: email, phone: phone, sentTo: sentTo, channel: channel, codeLength: codeLength, expiresAt: expiresAt,
            resendAvailableAt: resendAvailableAt, attemptsRemaining: attemptsRemaining, intent: intent, client: nil,
            redirectTo: nil)
    }

    /// Equal when every stored rule and address is; which client it is attached to does not count.
    public static func == (lhs: CodeRequired, rhs: CodeRequired) -> Bool {
        lhs.email == rhs.email && lhs.phone == rhs.phone && lhs.sentTo == rhs.sentTo && lhs.channel == rhs.channel
            && lhs.codeLength == rhs.codeLength && lhs.expiresAt == rhs.expiresAt && lhs.resendAvailableAt == rhs.resendAvailableAt
            && lhs.attemptsRemaining == rhs.attemptsRemaining && lhs.intent == rhs.intent && lhs.redirectTo == rhs.redirectTo
            && lhs.purpose == rhs.purpose
    }

    /// Whether the server said when the code expires (Latchkey does; GoTrue and an address or
    /// number change do not): show ``expiresAt`` only then.
    public var isExpiryKnown: Bool { expiresAt != .distantFuture }

    /// The `type` the server verifies this code as.
    var verificationType: String {
        switch purpose {
        case .signIn: phone == nil ? "email" : "sms"
        case .confirmation: "signup"
        case .recovery: "recovery"
        case .phoneChange: "phone_change"
        case .emailLink: "email_change"
        }
    }

    /// The attached client, or `code_state_detached` for a decoded state not yet resumed.
    func attachedClient() throws -> AuthClient {
        guard let client else {
            throw LatchkeyError(
                code: .codeStateDetached, message: "This code state belongs to no client: attach it with auth.resume(state) first")
        }
        return client
    }

    /// Exchanges the code for a session. A wrong code throws a ``LatchkeyError`` whose
    /// ``LatchkeyError/retryState`` is the state to try again from.
    @discardableResult
    public func submit(code: String) async throws -> Session {
        try await attachedClient().submitCode(code, state: self)
    }

    /// Sends a new code (the old one stops working) and returns the new state.
    public func resend() async throws -> CodeRequired {
        let client = try attachedClient()
        switch purpose {
        case .signIn:
            if let phone {
                return try await client.requestSMSCode(
                    phone: phone, intent: intent, data: nil, channel: SMSChannel(channel) ?? .sms)
            }
            return try await client.requestEmailCode(email: email, intent: intent, data: nil, redirectTo: redirectTo)
        case .confirmation: return try await client.resendConfirmation(email: email, redirectTo: redirectTo)
        case .recovery: return try await client.resetPassword(email: email, redirectTo: redirectTo)
        case .phoneChange: return try await client.link(phone: phone ?? "", channel: SMSChannel(channel) ?? .sms)
        case .emailLink: return try await client.link(email: email, redirectTo: redirectTo)
        }
    }

    func with(attemptsRemaining: Int?) -> CodeRequired {
        CodeRequired(
            email: email, phone: phone, sentTo: sentTo, channel: channel, codeLength: codeLength, expiresAt: expiresAt,
            resendAvailableAt: resendAvailableAt, attemptsRemaining: attemptsRemaining, intent: intent, client: client,
            redirectTo: redirectTo, purpose: purpose)
    }
}

extension AuthClient {
    /// The state attached to this client, so that ``CodeRequired/submit(code:)`` and
    /// ``CodeRequired/resend()`` work again: for a state the app decoded after a relaunch.
    public nonisolated func resume(_ state: CodeRequired) -> CodeRequired {
        var attached = state
        attached.client = self
        return attached
    }
}
