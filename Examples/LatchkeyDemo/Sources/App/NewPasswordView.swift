import Latchkey
import SwiftUI

/// A password-reset link or code signed the user in: they choose a new password.
struct NewPasswordView: View {
    let auth: AuthClient
    @State private var password = ""
    @State private var problem: String?

    var body: some View {
        Form {
            SecureField("New password", text: $password)
            Button("Save") {
                Task {
                    do {
                        _ = try await auth.updatePassword(password)
                    } catch {
                        problem = AccountModel.describe(error)
                    }
                }
            }
            if let problem { Text(problem).foregroundStyle(.red) }
        }
    }
}
