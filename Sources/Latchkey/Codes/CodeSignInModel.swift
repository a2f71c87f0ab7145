#if canImport(Observation)
    import Foundation
    import Observation

    /// A sign-in by emailed or texted code for SwiftUI: one observable model from "enter your
    /// address" to signed in, with the resend cooldown, wrong-code retries and the state to keep
    /// across a relaunch. Views read ``step``, ``isWorking`` and ``error`` and call ``send(to:)``,
    /// ``submit(_:)``, ``resend()``.
    ///
    /// ```swift
    /// @State private var codes = CodeSignInModel(client: auth)
    /// @SceneStorage("pendingCode") private var saved: Data?
    ///
    /// switch codes.step {
    /// case .address: TextField("Email", text: $email); Button("Send") { Task { await codes.send(to: email) } }
    /// case .code(let sent): TextField("Code from \(sent.sentTo)", text: $code); Button("Sign in") { Task { await codes.submit(code) } }
    /// case .signedIn: EmptyView()   // AuthModel moves on by itself
    /// }
    /// ```
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
    @MainActor @Observable
    public final class CodeSignInModel {
        /// Where codes go.
        public enum Destination: Sendable, Equatable {
            /// An emailed code (and link).
            case email
            /// A texted code, by SMS or WhatsApp.
            case phone(SMSChannel)
        }

        /// Where the sign-in stands.
        public enum Step: Sendable, Equatable {
            /// Asking for the address or number.
            case address
            /// A code was sent; asking for it. The state carries where it went (``CodeRequired/sentTo``),
            /// its length, its expiry and when it can be sent again.
            case code(CodeRequired)
            /// Signed in with this session.
            case signedIn(Session)
        }

        /// Where the sign-in stands now.
        public private(set) var step: Step = .address
        /// Whether a request is under way (disable the buttons).
        public private(set) var isWorking = false
        /// Why the last request failed, until the next one. A wrong code leaves ``step`` at
        /// ``Step/code(_:)`` with the attempts left; an expired or spent one asks for ``resend()``.
        public private(set) var error: LatchkeyError?
        /// The client the codes are asked of.
        public let client: AuthClient
        /// Where codes go.
        public let destination: Destination
        /// Whether an unknown address may sign up (else `isUserNotFound`).
        public let createUser: Bool

        /// A model over `client`.
        public init(client: AuthClient, destination: Destination = .email, createUser: Bool = true) {
            self.client = client
            self.destination = destination
            self.createUser = createUser
        }

        /// The sent code's state: keep it (it is `Codable`) and hand it to ``resume(_:)`` after a
        /// relaunch; `nil` when no code is pending.
        public var pending: CodeRequired? {
            if case .code(let state) = step { return state }
            return nil
        }

        /// Whether a new code may be asked for at `now`.
        public func canResend(at now: Date = Date()) -> Bool {
            guard let pending, !isWorking else { return false }
            return now >= pending.resendAvailableAt
        }

        /// Sends a code to `address` (an email address, or a phone number in E.164).
        public func send(to address: String) async {
            await work {
                switch self.destination {
                case .email: .code(try await self.client.signInWithEmailCode(email: address, createUser: self.createUser))
                case .phone(let channel):
                    .code(try await self.client.requestSMSCode(phone: address, createUser: self.createUser, channel: channel))
                }
            }
        }

        /// Submits `code`. A wrong one keeps the step with the attempts left.
        public func submit(_ code: String) async {
            guard let pending else { return }
            await work { .signedIn(try await pending.submit(code: code)) }
        }

        /// Sends a new code to the same place (the old one stops working).
        public func resend() async {
            guard let pending else { return }
            await work { .code(try await pending.resend()) }
        }

        /// Picks up a code state kept across a relaunch.
        public func resume(_ saved: CodeRequired) {
            step = .code(client.resume(saved))
            error = nil
        }

        /// Back to asking for the address.
        public func startOver() {
            step = .address
            error = nil
        }

        private func work(_ request: @MainActor () async throws -> Step) async {
            guard !isWorking else { return }
            isWorking = true
            defer { isWorking = false }
            do {
                step = try await request()
                error = nil
            } catch let failure as LatchkeyError {
                error = failure
                if let retry = failure.retryState { step = .code(retry) }
            } catch is CancellationError {
                return
            } catch {
                self.error = LatchkeyError(code: .unknown, message: "\(error)")
            }
        }
    }
#endif
