import AuthenticationServices
import Foundation
import SwiftUI
import Testing

@testable import Latchkey

/// The SwiftUI forms of the calls that show Apple's UI (issue #36, "SwiftUI first"): the
/// environment's `AuthorizationController` and `WebAuthenticationSession`, https universal-link
/// callbacks and ephemeral sessions, against the SwiftUI overlay's stand-in.
@Suite(.serialized) @MainActor struct SwiftUISurfaceTests {
    let environment = EnvironmentValues()

    @Test func theWebSessionComesBackToASchemeOrAnHTTPSLinkEphemeralIfAsked() async throws {
        let seen = Locked<[(ASWebAuthenticationSession.Callback, WebAuthenticationSession.BrowserSession?)]>([])
        SwiftUIStandIn.webAuthentication = { _, callback, browser in
            seen.withLock { $0.append((callback, browser)) }
            return URL(string: "https://app.example.com/auth/callback?code=abc")!
        }
        let start = URL(string: "https://auth.example.com/authorize?provider=google")!
        let https = try await AuthClient.authenticate(
            start, redirectTo: URL(string: "https://app.example.com/auth/callback")!, in: environment.webAuthenticationSession,
            ephemeral: true)
        #expect(https.absoluteString.hasSuffix("code=abc"))
        _ = try await AuthClient.authenticate(
            start, redirectTo: URL(string: "myapp://login")!, in: environment.webAuthenticationSession, ephemeral: false)
        let calls = seen.withLock { $0 }
        #expect(calls.count == 2)
        #expect(calls[0].0.standInScheme == "https" && calls[0].0.standInHost == "app.example.com")
        #expect(calls[0].0.standInPath == "/auth/callback" && calls[0].1 == .ephemeral)
        #expect(calls[1].0.standInScheme == "myapp" && calls[1].0.standInHost == nil && calls[1].1 == nil)

        // An http callback cannot come back to an app; the user's cancel is user_cancelled.
        await #expect {
            try await AuthClient.authenticate(
                start, redirectTo: URL(string: "http://app.example.com/cb")!, in: environment.webAuthenticationSession, ephemeral: false)
        } throws: { ($0 as? LatchkeyError)?.code == .validationFailed }
        SwiftUIStandIn.webAuthentication = { _, _, _ in throw ASWebAuthenticationSessionError(.canceledLogin) }
        await #expect {
            try await AuthClient.authenticate(
                start, redirectTo: URL(string: "myapp://login")!, in: environment.webAuthenticationSession, ephemeral: false)
        } throws: { ($0 as? LatchkeyError)?.isUserCancelled == true }
    }

    @Test func theAuthorizationControllerHandsItsCredentialToTheReaderOnTheMainActor() async throws {
        let apple = ASAuthorizationAppleIDCredential(
            user: "001", identityToken: Data("header.claims.signature".utf8), authorizationCode: Data("code".utf8),
            email: "ada@example.com", fullName: PersonNameComponents(givenName: "Ada", familyName: "Lovelace"))
        let options = Locked<[ASAuthorizationController.RequestOptions]>([])
        SwiftUIStandIn.authorization = { requests, asked in
            options.withLock { $0.append(asked) }
            #expect((requests.first as? ASAuthorizationAppleIDRequest)?.nonce?.count == 64)
            return .appleID(apple)
        }
        let answer = try await AuthClient.perform(
            environment.authorizationController, AuthClient.appleRequest(SignInNonce()), immediately: true, read: AuthClient.appleAnswer)
        #expect(answer.idToken == "header.claims.signature")
        #expect(answer.metadata?["full_name"] == "Ada Lovelace")
        // Apple's authorization code goes to the server, which revokes Apple's tokens with the account.
        #expect(answer.authorizationCode == "code")
        #expect(options.withLock { $0 } == [.preferImmediatelyAvailableCredentials])

        // Another kind of credential than the reader wants, Apple's cancel, another failure.
        SwiftUIStandIn.authorization = { _, _ in .password(ASPasswordCredential(user: "ada", password: "pw")) }
        await #expect {
            try await AuthClient.perform(
                environment.authorizationController, AuthClient.appleRequest(SignInNonce()), read: AuthClient.appleAnswer)
        } throws: { ($0 as? LatchkeyError)?.code == .invalidResponse }
        SwiftUIStandIn.authorization = { _, _ in throw ASAuthorizationError(.canceled) }
        await #expect {
            try await AuthClient.perform(
                environment.authorizationController, AuthClient.appleRequest(SignInNonce()), read: AuthClient.appleAnswer)
        } throws: { ($0 as? LatchkeyError)?.isUserCancelled == true }
        SwiftUIStandIn.authorization = { _, _ in throw ASAuthorizationError(.failed) }
        await #expect {
            try await AuthClient.perform(
                environment.authorizationController, AuthClient.appleRequest(SignInNonce()), read: AuthClient.appleAnswer)
        } throws: { ($0 as? ASAuthorizationError)?.code == .failed }
    }

    /// The provider-based web session comes back to an https universal link too, ephemeral if asked.
    @Test func thePresentedWebSessionTakesAnHTTPSCallbackAndEphemeral() async throws {
        let made = Locked<[ASWebAuthenticationSession]>([])
        StandIn.webSessionBehaviour = { session in
            made.withLock { $0.append(session) }
            session.finish(url: URL(string: "https://app.example.com/cb?code=x")!, error: nil)
        }
        let url = try await AuthClient.browse(
            URL(string: "https://auth.example.com/authorize")!, redirectTo: URL(string: "https://app.example.com/cb")!, ephemeral: true,
            presentationContextProvider: Anchors())
        #expect(url.query == "code=x")
        let session = try #require(made.withLock { $0.first })
        #expect(session.prefersEphemeralWebBrowserSession)
        #expect(session.standInCallback.standInHost == "app.example.com" && session.standInCallback.standInPath == "/cb")
    }
}

/// The README's SwiftUI screen is the file `Sources/ReadmeSample/ExampleApp.swift`, which this
/// package compiles against the stand-ins: the README prints it whole.
@Suite struct ReadmeSampleTests {
    @Test func theReadmePrintsTheCompiledScreen() throws {
        let here = URL(fileURLWithPath: #filePath)
        let root = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let sample = try String(contentsOf: root.appendingPathComponent("Sources/ReadmeSample/ExampleApp.swift"), encoding: .utf8)
        let readme = try String(
            contentsOf: root.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("```swift\n" + sample + "```\n"))
    }
}
