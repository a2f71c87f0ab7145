import Foundation

/// Where a one-time code was sent.
public enum CodeChannel: String, Sendable {
    /// By email.
    case email
    /// By SMS.
    case sms
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
    /// The address the code was sent to.
    public let email: String
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

    /// Exchanges the code for a session. A wrong code throws a ``LatchkeyError`` whose
    /// ``LatchkeyError/retryState`` is the state to try again from.
    @discardableResult
    public func submit(code: String) async throws -> Session {
        try await client.submitCode(code, state: self)
    }

    /// Sends a new code (the old one stops working) and returns the new state.
    public func resend() async throws -> CodeRequired {
        try await client.requestEmailCode(email: email, intent: intent, data: nil, redirectTo: redirectTo)
    }

    func with(attemptsRemaining: Int?) -> CodeRequired {
        CodeRequired(
            email: email, sentTo: sentTo, channel: channel, codeLength: codeLength, expiresAt: expiresAt,
            resendAvailableAt: resendAvailableAt, attemptsRemaining: attemptsRemaining, intent: intent, client: client,
            redirectTo: redirectTo)
    }
}
