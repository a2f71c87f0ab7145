import Foundation

/// Where a one-time code was sent.
public enum CodeChannel: String, Sendable {
    /// By email.
    case email
    /// By SMS.
    case sms
    /// By WhatsApp.
    case whatsapp
}

/// What a code flow is for, which decides the errors it may report.
public enum CodeIntent: Sendable {
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
///     } catch let error as LatchkeyError where error.isInvalidCode, let retry = error.retryState {
///         state = retry  // try again: \(retry.attemptsRemaining ?? 0) attempts left
///     }
/// }
/// ```
public struct CodeRequired: Sendable {
    /// What a code proves, which decides how it is verified and resent.
    enum Purpose: Sendable {
        /// Sign in (or up) by code.
        case signIn
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
    /// When the code stops working.
    public let expiresAt: Date
    /// When ``resend()`` may be called.
    public let resendAvailableAt: Date
    /// Wrong submissions the code survives, when the server says.
    public let attemptsRemaining: Int?
    /// What the flow is for.
    public let intent: CodeIntent

    let client: AuthClient
    let redirectTo: URL?
    let purpose: Purpose

    init(
        email: String, phone: String? = nil, sentTo: String, channel: CodeChannel, codeLength: Int, expiresAt: Date,
        resendAvailableAt: Date, attemptsRemaining: Int?, intent: CodeIntent, client: AuthClient, redirectTo: URL?,
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

    /// The `type` the server verifies this code as.
    var verificationType: String {
        switch purpose {
        case .signIn: phone == nil ? "email" : "sms"
        case .recovery: "recovery"
        case .phoneChange: "phone_change"
        case .emailLink: "email_change"
        }
    }

    /// Exchanges the code for a session. A wrong code throws a ``LatchkeyError`` whose
    /// ``LatchkeyError/retryState`` is the state to try again from.
    @discardableResult
    public func submit(code: String) async throws -> Session {
        try await client.submitCode(code, state: self)
    }

    /// Sends a new code (the old one stops working) and returns the new state.
    public func resend() async throws -> CodeRequired {
        switch purpose {
        case .signIn:
            if let phone {
                return try await client.requestSMSCode(phone: phone, intent: intent, data: nil, channel: channel.rawValue)
            }
            return try await client.requestEmailCode(email: email, intent: intent, data: nil, redirectTo: redirectTo)
        case .recovery: return try await client.resetPassword(email: email, redirectTo: redirectTo)
        case .phoneChange: return try await client.link(phone: phone ?? "", channel: channel.rawValue)
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
