import Latchkey
import SwiftUI

/// A user with a second factor signed in with a first one: an authenticator app's code, a code
/// sent to their phone, their security key, or a recovery code completes it.
struct SecondFactorView: View {
    @State private var model: SecondFactorModel
    @State private var code = ""

    init(auth: AuthModel) {
        _model = State(initialValue: SecondFactorModel(auth: auth))
    }

    var body: some View {
        Form {
            if model.takesCode {
                TextField(model.usesRecoveryCode ? "Recovery code" : "Code", text: $code).textContentType(.oneTimeCode)
                Button("Continue") { Task { await model.submit(code) } }
            }
            if model.phone != nil, !model.usesRecoveryCode {
                Button("Text me a code") { Task { await model.sendCode() } }
            }
            if model.securityKey != nil, !model.usesRecoveryCode {
                Button("Use my security key") { Task { await model.useSecurityKey() } }
            }
            Button(model.usesRecoveryCode ? "Use my second factor" : "Use a recovery code") { model.usesRecoveryCode.toggle() }
            if let problem = model.problem { Text(problem).foregroundStyle(.red) }
        }
        .disabled(model.isWorking)
    }
}
