import Latchkey
import SwiftUI

/// One screen per phase of the session.
struct RootView: View {
    let model: AuthModel

    var body: some View {
        switch model.phase {
        case .restoring: ProgressView()
        case .signedOut: SignInView(auth: model.client)
        case .needsSecondFactor: SecondFactorView(client: model.client)
        case .recoveringPassword: NewPasswordView(auth: model.client)
        case .signedIn(let session): HomeView(session: session, client: model.client)
        }
    }
}
