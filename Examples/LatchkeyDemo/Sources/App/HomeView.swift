import Latchkey
import SwiftUI

/// Signed in: Face ID for next time, a passkey, signing out, deleting the account.
struct HomeView: View {
    let session: Session
    @State private var account: AccountModel
    @State private var code = ""
    @Environment(\.authorizationController) private var authorizationController

    init(session: Session, client: AuthClient) {
        self.session = session
        _account = State(initialValue: AccountModel(client: client))
    }

    var body: some View {
        Form {
            Section {
                Text("Signed in as \(session.user.email)")
            }
            Section {
                if account.deviceKeyEnrolled {
                    Text("Face ID signs you in on this device.")
                } else {
                    Button("Sign in with Face ID next time") { Task { await account.enrolDeviceKey(name: "Demo device") } }
                }
                Button("Add a passkey") {
                    Task {
                        do {
                            try await account.client.registerPasskey(using: authorizationController)
                        } catch {
                            account.report(error)
                        }
                    }
                }
            }
            Section {
                Button("Sign out") { Task { await account.signOut() } }
                if account.deletion == .needsCode {
                    TextField("Code from the email", text: $code).textContentType(.oneTimeCode)
                    Button("Delete my account for good") { Task { await account.deleteAccount(code: code) } }
                } else {
                    Button("Delete my account") { Task { await account.deleteAccount() } }
                }
            }
            if let problem = account.problem { Text(problem).foregroundStyle(.red) }
        }
        .disabled(account.isWorking || account.deletion == .deleting)
        .onAppear { Task { await account.refresh() } }
    }
}
