import Latchkey
import SwiftUI

/// A user with an authenticator app signed in with a first factor: the app's code completes it.
struct SecondFactorView: View {
    @State private var model: SecondFactorModel
    @State private var code = ""

    init(client: AuthClient) {
        _model = State(initialValue: SecondFactorModel(client: client))
    }

    var body: some View {
        Form {
            TextField("Code from your authenticator app", text: $code).textContentType(.oneTimeCode)
            Button("Continue") { Task { await model.submit(code) } }
            if let problem = model.problem { Text(problem).foregroundStyle(.red) }
        }
        .disabled(model.isWorking)
    }
}
