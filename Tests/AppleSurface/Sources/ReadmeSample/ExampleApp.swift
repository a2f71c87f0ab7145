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
                case .signedIn(let session): Text("Signed in as \(session.user.email ?? "you")")
                }
            }
            .onOpenURL { url in model.client.handle(url) }
        }
    }
}

struct SignInScreen: View {
    let auth: AuthClient
    @State private var email = ""
    @State private var code = ""
    @State private var sent: CodeRequired?
    @State private var problem: String?
    @Environment(\.authorizationController) private var authorizationController

    var body: some View {
        Form {
            TextField("Email", text: $email)
            Button("Email me a code") { attempt { sent = try await auth.signInWithEmailCode(email: email) } }
            if let sent {
                TextField("Code", text: $code)
                Button("Sign in") { attempt { try await sent.submit(code: code) } }
            }
            Button("Sign in with a passkey") { attempt { try await auth.signInWithPasskey(using: authorizationController) } }
            Button("Sign in with Apple") { attempt { try await auth.signInWithApple(using: authorizationController) } }
            if let problem { Text(problem) }
        }
    }

    private func attempt(_ work: @escaping @MainActor () async throws -> Void) {
        Task { do { try await work() } catch { problem = error.localizedDescription } }
    }
}
