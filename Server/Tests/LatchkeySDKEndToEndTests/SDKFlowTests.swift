import Foundation
import Latchkey
import LatchkeyCore
import LatchkeyServer
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct SDKFlowTests {
    let password = "correct horse battery staple"

    @Test func passwordSignUpVerifyByCodeSignInUpdateAndRestore() async throws {
        try await LiveServer.run { server in
            let storage = InMemorySessionStorage()
            let auth = server.client(storage: storage)
            let result = try await auth.signUp(email: "Ada@Example.com", password: password, data: ["name": "Ada"])
            #expect(result.action == "verify_email")
            #expect(result.user.email == "ada@example.com")
            do {
                try await auth.signIn(email: "ada@example.com", password: password)
                Issue.record("unverified sign-in should fail")
            } catch let error as LatchkeyError {
                #expect(error.isEmailNotConfirmed)
            }
            try await auth.requestEmailVerification(email: "ada@example.com")
            let session = try await auth.verifyEmail(email: "ada@example.com", code: try await server.latestCode("ada@example.com"))
            #expect(session.user.emailConfirmedAt != nil)

            let updated = try await auth.updateUser(UserAttributes(data: ["team": "core"]))
            #expect(updated.userMetadata["team"] == "core")
            #expect(updated.userMetadata["name"] == "Ada")

            // A new client on the same storage (the app relaunched) is signed in at once.
            let relaunched = server.client(storage: storage)
            var changes = relaunched.authStateChanges.makeAsyncIterator()
            let first = await changes.next()
            #expect(first?.event == .initialSession)
            #expect(first?.session?.user.email == "ada@example.com")
            #expect(try await relaunched.user().userMetadata["team"] == "core")

            try await relaunched.signOut()
            do {
                _ = try await relaunched.session()
            } catch let error as LatchkeyError {
                #expect(error.isSessionMissing)
            }
            do {
                try await auth.signIn(email: "ada@example.com", password: "not the password at all")
            } catch let error as LatchkeyError {
                #expect(error.isInvalidCredentials)
            }
            #expect(try await auth.signIn(email: "ada@example.com", password: password).user.email == "ada@example.com")
        }
    }

    @Test func verificationLinkTokenAndDeepLink() async throws {
        try await LiveServer.run { server in
            let auth = server.client()
            _ = try await auth.signUp(email: "link@example.com", password: password)
            let link = try await server.latestLink("link@example.com")
            let token = try #require(
                URLComponents(url: link, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "token" }?.value)
            // The app was opened with the token (a link it built): verify it.
            let session = try await auth.verifyEmail(token: token)
            #expect(session.user.email == "link@example.com")

            // The server's own link, implicit flow: the button redirects with the tokens.
            let implicit = server.client(flowType: .implicit)
            _ = try await implicit.signUp(email: "deep@example.com", password: password)
            let location = try await server.click(try await server.latestLink("deep@example.com"))
            #expect(location.hasPrefix("myapp://auth-callback#access_token="))
            let fromLink = try await implicit.session(from: try #require(URL(string: location)))
            #expect(fromLink.user.email == "deep@example.com")
            #expect(await implicit.currentSession?.refreshToken == fromLink.refreshToken)
        }
    }

    @Test func pkceLinksCarryOnlyACodeThatThisDeviceExchanges() async throws {
        try await LiveServer.run { server in
            let phone = server.client()
            _ = try await phone.signUp(email: "pkce@example.com", password: password)
            let link = try await server.latestLink("pkce@example.com")
            let location = try await server.click(link)
            #expect(location.hasPrefix("myapp://auth-callback?code="))
            #expect(!location.contains("access_token"))
            // Another install cannot use the code; this one can.
            do {
                try await server.client().session(from: try #require(URL(string: location)))
                Issue.record("a code without its verifier signed in")
            } catch let error as LatchkeyError {
                #expect(error.code == .badCodeVerifier)
            }
            let session = try await phone.session(from: try #require(URL(string: location)))
            #expect(session.user.email == "pkce@example.com")

            // Cross-device: the code typed from the same kind of email works anywhere.
            let laptop = server.client()
            let state = try await laptop.signInWithEmailCode(email: "pkce@example.com")
            #expect(try await state.submit(code: try await server.latestCode("pkce@example.com")).user.email == "pkce@example.com")
        }
    }

    /// Issue #36, defect 4: each request keeps its own verifier until its link is used, so a
    /// second request (another address's sign-up, a reset) does not break the first email's link.
    @Test func eachLinkOutIsExchangedWithItsOwnVerifier() async throws {
        try await LiveServer.run { server in
            let phone = server.client()
            _ = try await phone.signUp(email: "first@example.com", password: password)
            _ = try await phone.signUp(email: "second@example.com", password: password)
            let first = try await server.click(try await server.latestLink("first@example.com"))
            let second = try await server.click(try await server.latestLink("second@example.com"))
            // The older link: the newer verifier is refused and spends nothing, the older one fits.
            #expect(try await phone.session(from: try #require(URL(string: first))).user.email == "first@example.com")
            #expect(try await phone.session(from: try #require(URL(string: second))).user.email == "second@example.com")
            // Each verifier went with its link.
            do {
                try await phone.session(from: try #require(URL(string: first)))
                Issue.record("a used link signed in again")
            } catch let error as LatchkeyError {
                #expect(error.code == .badCodeVerifier)
            }
        }
    }

    @Test func emailCodeSignInWithTypedRetryAndResend() async throws {
        try await LiveServer.run { server in
            let auth = server.client()
            do {
                _ = try await auth.signInWithEmailCode(email: "new@example.com", createUser: false)
                Issue.record("unknown address should be reported when asked")
            } catch let error as LatchkeyError {
                #expect(error.isUserNotFound)
            }
            let first = try await auth.signUpWithEmailCode(email: "new@example.com", data: ["plan": "free"])
            #expect(first.sentTo == "n***@example.com")
            #expect(first.codeLength == 6)
            #expect(first.attemptsRemaining == 5)
            let resent = try await first.resend()
            let code = try await server.latestCode("new@example.com")
            let wrong = code == "000000" ? "111111" : "000000"
            var state = resent
            do {
                try await state.submit(code: wrong)
                Issue.record("wrong code accepted")
            } catch let error as LatchkeyError {
                #expect(error.isInvalidCode)
                state = try #require(error.retryState)
                #expect(state.attemptsRemaining == 4)
            }
            let session = try await state.submit(code: code)
            #expect(session.user.userMetadata["plan"] == "free")
            do {
                _ = try await auth.signUpWithEmailCode(email: "new@example.com")
            } catch let error as LatchkeyError {
                #expect(error.isUserAlreadyExists)
            }
            let signIn = try await auth.signInWithEmailCode(email: "new@example.com", createUser: false)
            #expect(try await signIn.submit(code: try await server.latestCode("new@example.com")).user.email == "new@example.com")
        }
    }

    @Test func observableCodeFlowAgainstTheServer() async throws {
        try await LiveServer.run { server in
            let flow = server.client().emailCodeFlow()
            try await flow.sendCode(to: "flow@example.com")
            try await flow.submit(code: try await server.latestCode("flow@example.com"))
            var last: CodeFlowState?
            for await state in flow.states { last = state }
            guard case .done(let session) = last else { Issue.record("flow did not finish"); return }
            #expect(session.user.email == "flow@example.com")
        }
    }
}

/// Sends a request without following redirects and returns the `Location` header.
final class NoRedirect: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    static func location(of request: URLRequest) async throws -> String {
        let session = URLSession(configuration: .ephemeral, delegate: NoRedirect(), delegateQueue: nil)
        let (_, response) = try await session.data(for: request)
        return (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Location") ?? ""
    }
}
