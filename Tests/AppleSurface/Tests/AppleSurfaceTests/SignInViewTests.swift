import Foundation
import LatchkeyTesting
import LatchkeyUI
import SwiftUI
import Testing

@testable import Latchkey

/// Issue #37: LatchkeyUI's `SignInView` builds its body for every screen of its model, against
/// the SwiftUI stand-in (the view draws nothing here; what it decides is `SignInModel`'s, tested
/// on Linux in Tests/LatchkeyUITests).
@Suite(.serialized) @MainActor struct SignInViewTests {
    static let sent = #"{"message_id":"m1","code_length":6,"expires_in":600,"resend_after":60,"max_attempts":5}"#

    @Test func everyScreenBuilds() async throws {
        let transport = MockTransport()
        await transport.respond(to: "POST", path: "/otp", json: Self.sent)
        await transport.respond(to: "POST", path: "/verify", json: ReturningUserApple.sessionJSON)
        let storage = InMemorySessionStorage()
        await storage.save(try JSONEncoder().encode(ReturningUserApple.hint), key: "latchkey.session.returning-user")
        let auth = AuthClient(
            configuration: .init(url: URL(string: "https://auth.example.com")!, storage: storage, transport: transport, autoRefresh: false))
        await auth.waitUntilReady()
        let model = SignInModel(client: auth)
        let theme = SignInTheme(accent: .indigo, logo: Image("Logo"), logoLabel: "Acme", copy: SignInCopy(language: "fr"))
        var screens: [String] = []
        func draw() {
            _ = SignInView(model: model, theme: theme).body
            screens.append(String(describing: model.screen).prefix { $0 != "(" }.description)
        }
        draw()
        await model.load()
        draw()
        await model.sendCodeToReturningUser()
        draw()
        model.code = "123456"
        await model.submitCode()
        draw()
        model.declineUpgrade()
        draw()
        model.useAnotherAccount()
        draw()
        #expect(screens == ["loading", "welcomeBack", "code", "upgrade", "signedIn", "choices"])
        _ = SignInView(client: auth) { _ in }.body
    }
}
