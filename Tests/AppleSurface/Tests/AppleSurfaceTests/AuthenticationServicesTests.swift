import AuthenticationServices
import Foundation
import Testing
import UIKitControls

@testable import Latchkey

/// The SDK's AuthenticationServices code, compiled against the stand-in and run the way Apple's
/// framework runs it: completion handlers on a queue of the framework's own, delegates on the main
/// thread, sessions retained by nobody but their caller (issue #36, defects 1 and 2).
@Suite(.serialized) @MainActor struct AuthenticationServicesTests {

    /// Defect 1: the completion handler used to inherit the main actor from `browse`, and Swift's
    /// isolation check trapped when AuthenticationServices called it from its own queue.
    @Test func aWebSessionThatCompletesOffTheMainThreadReturnsItsURL() async throws {
        StandIn.webSessionBehaviour = { session in session.finish(url: URL(string: "myapp://login?code=abc")!, error: nil) }
        let anchors = Anchors()
        let url = try await AuthClient.browse(
            URL(string: "https://auth.example.com/authorize")!, callbackScheme: "myapp", presentationContextProvider: anchors)
        #expect(url.absoluteString == "myapp://login?code=abc")
    }

    /// Nothing but the SDK holds the session while the sheet is up (the stand-in keeps none, as
    /// Apple's header promises none); the user's answer comes a moment later.
    @Test func theSessionIsKeptUntilTheUserAnswers() async throws {
        let started = Locked<[Weak]>([])
        StandIn.webSessionBehaviour = { session in
            started.withLock { $0.append(Weak(session)) }
            StandIn.webSessions.withLock { $0.removeAll { $0 === session } }
            let weak = Weak(session)
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) {
                guard let session = weak.object as? ASWebAuthenticationSession else { return }
                StandIn.webSessions.withLock { $0.append(session) }
                session.finish(url: URL(string: "myapp://login?code=late")!, error: nil)
            }
        }
        let anchors = Anchors()
        let browsing = Task { @MainActor in
            try await AuthClient.browse(
                URL(string: "https://auth.example.com/a")!, callbackScheme: "myapp", presentationContextProvider: anchors
            )
            .absoluteString
        }
        let watchdog = Task {
            try await Task.sleep(for: .seconds(5))
            browsing.cancel()
        }
        let outcome = try? await browsing.value
        watchdog.cancel()
        #expect(outcome == "myapp://login?code=late", "the session was let go while the sheet was up")
        #expect(started.withLock { $0.count } == 1)
    }

    /// A cancelled task cancels the session (and the sign-in ends instead of waiting for ever).
    @Test func cancellingTheTaskCancelsTheSession() async throws {
        StandIn.webSessionBehaviour = { _ in }  // the sheet stays up
        let anchors = Anchors()
        let task = Task { @MainActor in
            try await AuthClient.browse(
                URL(string: "https://auth.example.com/b")!, callbackScheme: "myapp", presentationContextProvider: anchors)
        }
        try await Task.sleep(for: .milliseconds(100))
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        let left = StandIn.webSessions.withLock { $0.count }
        #expect(left == 0)
    }

    /// Defect 2: the credential (not Sendable) is read on the main actor where the delegate gets it;
    /// only the Sendable result crosses.
    @Test func anAuthorizationIsReadWhereItArrives() async throws {
        let apple = ASAuthorizationAppleIDCredential(
            user: "001", identityToken: Data("header.claims.signature".utf8), authorizationCode: Data("code".utf8),
            email: "ada@example.com", fullName: nil)
        StandIn.authorizationBehaviour = { controller, _ in controller.finish(.success(apple)) }
        let anchors = Anchors()
        let token = try await AuthorizationRunner.run(
            ASAuthorizationAppleIDProvider().createRequest(), presentationContextProvider: anchors
        ) {
            credential -> String in
            MainActor.preconditionIsolated()
            return String(decoding: (credential as? ASAuthorizationAppleIDCredential)?.identityToken ?? Data(), as: UTF8.self)
        }
        #expect(token == "header.claims.signature")
    }

    /// The controller holds its delegate weakly: the runner keeps itself, and a cancelled task
    /// reaches `controller.cancel()`.
    @Test func cancellingTheTaskCancelsTheController() async throws {
        StandIn.authorizationBehaviour = { _, _ in }  // the sheet stays up
        let before = StandIn.cancelledControllers.withLock { $0 }
        let anchors = Anchors()
        let task = Task { @MainActor in
            try await AuthorizationRunner.run(ASAuthorizationAppleIDProvider().createRequest(), presentationContextProvider: anchors) { _ in
                1
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(StandIn.cancelledControllers.withLock { $0 } == before + 1)
    }

    /// Defect 8 (Apple's part): the user's cancel on either sheet is the SDK's `isUserCancelled`,
    /// not Apple's error passed through.
    @Test func theUsersCancelIsUserCancelled() async throws {
        StandIn.webSessionBehaviour = { $0.finish(url: nil, error: ASWebAuthenticationSessionError(.canceledLogin)) }
        StandIn.authorizationBehaviour = { controller, _ in controller.finish(.failure(ASAuthorizationError(.canceled))) }
        let anchors = Anchors()
        await #expect {
            try await AuthClient.browse(URL(string: "https://a.example")!, callbackScheme: "myapp", presentationContextProvider: anchors)
        } throws: { ($0 as? LatchkeyError)?.isUserCancelled == true }
        await #expect {
            try await AuthorizationRunner.run(ASAuthorizationAppleIDProvider().createRequest(), presentationContextProvider: anchors) { _ in
                1
            }
        } throws: { ($0 as? LatchkeyError)?.isUserCancelled == true }
        // Another failure passes as Apple gave it.
        StandIn.authorizationBehaviour = { controller, _ in controller.finish(.failure(ASAuthorizationError(.failed))) }
        await #expect {
            try await AuthorizationRunner.run(ASAuthorizationAppleIDProvider().createRequest(), presentationContextProvider: anchors) { _ in
                1
            }
        } throws: { ($0 as? ASAuthorizationError)?.code == .failed }
    }
}

/// No presentation context given (UIKit code without a view controller at hand, or any app that
/// does not care where the sheet shows): the SDK finds the key window of the active scene, and
/// keeps its presenter alive for the flow (the sessions hold it weakly).
extension AuthenticationServicesTests {  // the same stand-in state: one test at a time
    @Test func theActiveScenesKeyWindowAnchorsTheSheetsItMadeAPresenterFor() async throws {
        let background = StandInWindows.window(key: true)
        let key = StandInWindows.window(key: true)
        StandInWindows.install([(active: false, windows: [background]), (active: true, windows: [StandInWindows.window(), key])])
        #expect(KeyWindowPresenter.anchor() === key)

        // A presenter nobody else holds, as `signInWithApple()` makes one, anchors both sheets (the
        // flows keep it: the sessions hold it weakly; a debug build keeps the argument alive
        // anyway, so this shows the anchor, not the keeping).
        let apple = ASAuthorizationAppleIDCredential(
            user: "001", identityToken: Data("t".utf8), authorizationCode: nil, email: nil, fullName: nil)
        StandIn.authorizationBehaviour = { controller, _ in controller.finish(.success(apple)) }
        StandIn.anchors.withLock { $0.removeAll() }
        let read = try await AuthorizationRunner.run(
            ASAuthorizationAppleIDProvider().createRequest(), presentationContextProvider: KeyWindowPresenter()
        ) { credential in (credential as? ASAuthorizationAppleIDCredential)?.user ?? "" }
        #expect(read == "001")
        StandIn.webSessionBehaviour = { $0.finish(url: URL(string: "myapp://login?code=k")!, error: nil) }
        let url = try await AuthClient.browse(
            URL(string: "https://auth.example.com/authorize")!, callbackScheme: "myapp", presentationContextProvider: KeyWindowPresenter())
        #expect(url.query == "code=k")
        #expect(StandIn.anchors.withLock { $0.map { $0 === key } } == [true, true])

        // No scene at all (an extension, a test host): a new window.
        StandInWindows.install([])
        #expect(KeyWindowPresenter.anchor() !== key)
    }
}

@MainActor
final class Anchors: NSObject, ASWebAuthenticationPresentationContextProviding, ASAuthorizationControllerPresentationContextProviding {
    func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor { StandInWindows.window() }
    func presentationAnchor(for controller: ASAuthorizationController) -> ASPresentationAnchor { StandInWindows.window() }
}

final class Weak: @unchecked Sendable {
    weak var object: AnyObject?
    init(_ object: AnyObject) { self.object = object }
}
