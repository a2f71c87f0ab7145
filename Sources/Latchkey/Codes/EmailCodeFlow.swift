import Foundation

/// Where an email-code sign-in stands (the Privy seed's `OtpFlowState`).
public enum CodeFlowState: Sendable {
    /// Nothing sent yet.
    case initial
    /// A code is being requested.
    case sendingCode
    /// Requesting a code failed.
    case sendCodeFailure(LatchkeyError)
    /// A code was sent; the flow waits for the user to enter it.
    case awaitingCodeInput(CodeRequired)
    /// A code is being checked.
    case submittingCode
    /// The code was wrong; the next try is submitted from this state.
    case incorrectCode(CodeRequired)
    /// Signing in failed for another reason, e.g. an expired code or no network.
    case signInError(LatchkeyError)
    /// Signed in; the last state of the flow.
    case done(Session)
}

/// An email-code sign-in whose progress an app can observe.
///
/// ```swift
/// let flow = auth.emailCodeFlow()
/// Task { for await state in flow.states { render(state) } }
/// try await flow.sendCode(to: "ada@example.com")
/// try await flow.submit(code: "123456")
/// ```
public actor EmailCodeFlow {
    /// Every state the flow passes through, starting with ``CodeFlowState/initial``.
    public nonisolated let states: AsyncStream<CodeFlowState>
    let continuation: AsyncStream<CodeFlowState>.Continuation
    let client: AuthClient
    let intent: CodeIntent
    /// The state codes are submitted from, once a code was sent.
    public private(set) var pending: CodeRequired?

    init(client: AuthClient, intent: CodeIntent) {
        (states, continuation) = AsyncStream.makeStream(of: CodeFlowState.self, bufferingPolicy: .bufferingNewest(32))
        self.client = client
        self.intent = intent
        continuation.yield(.initial)
    }

    /// Sends a code to `email`.
    @discardableResult
    public func sendCode(to email: String) async throws -> CodeRequired {
        continuation.yield(.sendingCode)
        do {
            let state = try await client.requestEmailCode(email: email, intent: intent, data: nil, redirectTo: nil)
            pending = state
            continuation.yield(.awaitingCodeInput(state))
            return state
        } catch {
            let failure = error as? LatchkeyError ?? LatchkeyError.network(error)
            continuation.yield(.sendCodeFailure(failure))
            throw failure
        }
    }

    /// Submits the code the user typed.
    @discardableResult
    public func submit(code: String) async throws -> Session {
        guard let pending else {
            let error = LatchkeyError(code: .validationFailed, message: "Send a code before submitting one")
            continuation.yield(.signInError(error))
            throw error
        }
        continuation.yield(.submittingCode)
        do {
            let session = try await pending.submit(code: code)
            continuation.yield(.done(session))
            continuation.finish()
            return session
        } catch let error as LatchkeyError {
            if let retry = error.retryState {
                self.pending = retry
                continuation.yield(.incorrectCode(retry))
            } else {
                continuation.yield(.signInError(error))
            }
            throw error
        }
    }
}

extension AuthClient {
    /// A new observable email-code flow.
    public nonisolated func emailCodeFlow(intent: CodeIntent = .signInOrSignUp) -> EmailCodeFlow {
        EmailCodeFlow(client: self, intent: intent)
    }
}
