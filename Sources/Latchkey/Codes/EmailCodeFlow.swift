import Foundation

/// Where an email-code sign-in stands (the Privy seed's `OtpFlowState`).
public enum CodeFlowState: Sendable, Equatable {
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
/// Task { for await state in flow.states { render(state) } }   // any number of observers
/// try await flow.sendCode(to: "ada@example.com")
/// try await flow.submit(code: "123456")
/// ```
public actor EmailCodeFlow {
    /// The state now, then every state the flow passes through: a new stream for each access,
    /// so any number of observers (a re-mounted SwiftUI `.task`) see every state. Streams end
    /// after ``CodeFlowState/done(_:)``.
    public nonisolated var states: AsyncStream<CodeFlowState> { broadcast.stream() }
    /// The state now.
    public nonisolated var state: CodeFlowState { broadcast.current }
    let broadcast = StateBroadcast(CodeFlowState.initial)
    let client: AuthClient
    let intent: CodeIntent
    /// The state codes are submitted from, once a code was sent.
    public private(set) var pending: CodeRequired?

    init(client: AuthClient, intent: CodeIntent) {
        self.client = client
        self.intent = intent
    }

    /// Sends a code to `email`.
    @discardableResult
    public func sendCode(to email: String) async throws -> CodeRequired {
        broadcast.send(.sendingCode)
        do {
            let state = try await client.requestEmailCode(email: email, intent: intent, data: nil, redirectTo: nil)
            pending = state
            broadcast.send(.awaitingCodeInput(state))
            return state
        } catch {
            let failure = error as? LatchkeyError ?? LatchkeyError.network(error)
            broadcast.send(.sendCodeFailure(failure))
            throw failure
        }
    }

    /// Submits the code the user typed.
    @discardableResult
    public func submit(code: String) async throws -> Session {
        guard let pending else {
            let error = LatchkeyError(code: .validationFailed, message: "Send a code before submitting one")
            broadcast.send(.signInError(error))
            throw error
        }
        broadcast.send(.submittingCode)
        do {
            let session = try await pending.submit(code: code)
            broadcast.send(.done(session))
            broadcast.finish()
            return session
        } catch let error as LatchkeyError {
            if let retry = error.retryState {
                self.pending = retry
                broadcast.send(.incorrectCode(retry))
            } else {
                broadcast.send(.signInError(error))
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
