import Latchkey
import LatchkeyUI
import SwiftUI

/// One screen per phase of the session.
struct RootView: View {
    let model: AuthModel

    var body: some View {
        switch model.phase {
        case .restoring: ProgressView()
        // LatchkeyUI's screen: "welcome back" and the strongest way in for a returning user, an
        // address and a code for a new one. AuthModel moves on when the session arrives.
        case .signedOut:
            SignInView(
                client: model.client,
                theme: SignInTheme(
                    accent: .indigo, copy: SignInCopy(overrides: [.title: "Latchkey Demo"]), deviceKeyReason: "Sign in to the demo"))
        case .needsSecondFactor: SecondFactorView(auth: model)
        case .recoveringPassword: NewPasswordView(auth: model.client)
        case .signedIn(let session): HomeView(session: session, client: model.client)
        }
    }
}
