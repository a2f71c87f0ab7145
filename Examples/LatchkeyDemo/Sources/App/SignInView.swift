import Latchkey
import SwiftUI

/// The ways in: an emailed code, Face ID when this device has a key, a passkey, Sign in with Apple.
struct SignInView: View {
    let auth: AuthClient
    @State private var codes: CodeSignInModel
    @State private var email = ""
    @State private var code = ""
    @State private var hasDeviceKey = false
    @State private var problem: String?
    @Environment(\.authorizationController) private var authorizationController

    init(auth: AuthClient) {
        self.auth = auth
        _codes = State(initialValue: CodeSignInModel(client: auth))
    }

    var body: some View {
        Form {
            Section {
                if case .code(let sent) = codes.step {
                    TextField("Code sent to \(sent.sentTo)", text: $code).textContentType(.oneTimeCode)
                    Button("Sign in") { Task { await codes.submit(code) } }
                    Button("Send another code") { Task { await codes.resend() } }.disabled(!codes.canResend())
                    Button("Use another address") { codes.startOver() }
                } else {
                    TextField("Email", text: $email).textContentType(.emailAddress)
                    Button("Email me a code") { Task { await codes.send(to: email) } }
                }
            }
            Section {
                if hasDeviceKey {
                    Button("Sign in with Face ID") { attempt { try await auth.signInWithDeviceKey(reason: "Sign in to the demo") } }
                }
                Button("Sign in with a passkey") { attempt { try await auth.signInWithPasskey(using: authorizationController) } }
                Button("Sign in with Apple") { attempt { try await auth.signInWithApple(using: authorizationController) } }
            }
            if let message = codes.error?.message ?? problem { Text(message).foregroundStyle(.red) }
        }
        .disabled(codes.isWorking)
        .onAppear { Task { hasDeviceKey = await auth.deviceKeys.isEnrolled } }
    }

    private func attempt(_ work: @escaping @MainActor () async throws -> Void) {
        Task {
            do {
                try await work()
            } catch {
                problem = AccountModel.describe(error)
            }
        }
    }
}
