import Latchkey
import SwiftUI

/// Latchkey's demo app: an emailed code, a passkey, Sign in with Apple, Face ID with a device key,
/// a second factor, a password reset, signing out and deleting the account.
@main
struct DemoApp: App {
    @State private var model = AuthModel(
        client: AuthClient(configuration: .init(url: DemoSettings.serverURL, redirectURL: DemoSettings.redirectURL)))

    var body: some Scene {
        WindowGroup {
            RootView(model: model)
                .onOpenURL { url in model.client.handle(url) }
        }
    }
}

/// Where the demo's server is: `LatchkeyServerURL` in Info.plist (a local `latchkey serve` by default).
enum DemoSettings {
    static var serverURL: URL {
        (Bundle.main.object(forInfoDictionaryKey: "LatchkeyServerURL") as? String).flatMap(URL.init(string:))
            ?? URL(string: "http://localhost:9999")!
    }
    /// The URL type in Info.plist, and an entry of the server's `GOTRUE_URI_ALLOW_LIST`.
    static let redirectURL = URL(string: "latchkeydemo://auth-callback")!
}
