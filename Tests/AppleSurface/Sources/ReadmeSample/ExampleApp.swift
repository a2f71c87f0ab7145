import Latchkey
import SwiftUI

@main
struct ExampleApp: App {
    @State private var model = AuthModel(
        client: AuthClient(
            configuration: .init(url: URL(string: "https://auth.example.com")!, redirectURL: URL(string: "example://auth-callback"))))

    var body: some Scene {
        WindowGroup {
            Group {
                switch model.phase {
                case .restoring: ProgressView()
                case .signedOut: SignInScreen(auth: model.client)
                case .signedIn(let session): Text("Signed in as \(session.user.email)")
                case .needsSecondFactor, .recoveringPassword: Text("Next: your second factor, or a new password")
                }
            }
            .onOpenURL { url in model.client.handle(url) }
        }
    }
}

struct SignInScreen: View {
    let auth: AuthClient
    @State private var codes: CodeSignInModel
    @State private var email = ""
    @State private var code = ""
    @State private var problem: String?
    @Environment(\.authorizationController) private var authorizationController

    init(auth: AuthClient) {
        self.auth = auth
        _codes = State(initialValue: CodeSignInModel(client: auth))
    }

    var body: some View {
        Form {
            if case .code(let sent) = codes.step {
                TextField("Code sent to \(sent.sentTo)", text: $code)
                Button("Sign in") { Task { await codes.submit(code) } }
                Button("Send another code") { Task { await codes.resend() } }.disabled(!codes.canResend())
            } else {
                TextField("Email", text: $email)
                Button("Email me a code") { Task { await codes.send(to: email) } }
            }
            Button("Sign in with a passkey") { attempt { try await auth.signInWithPasskey(using: authorizationController) } }
            Button("Sign in with Apple") { attempt { try await auth.signInWithApple(using: authorizationController) } }
            if let message = codes.error?.message ?? problem { Text(message) }
        }
        .disabled(codes.isWorking)
    }

    private func attempt(_ work: @escaping @MainActor () async throws -> Void) {
        Task { do { try await work() } catch { problem = error.localizedDescription } }
    }
}
