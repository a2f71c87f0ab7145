import Foundation
import LatchkeyTesting
import Observation
import Testing

@testable import Latchkey

/// What a SwiftUI app holds: the observable model, completion handlers on the main actor,
/// failed links as events, and observers that stop when their owner goes.
@Suite struct SwiftUISupportTests {
    /// Waits (at most 5 s) until `condition` holds on the main actor.
    @MainActor
    static func eventually(_ condition: @MainActor () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(5)
        while !condition() {
            if Date() > deadline { return false }
            try? await Task.sleep(nanoseconds: 2_000_000)
        }
        return true
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @MainActor @Test func theModelFollowsTheClientFromRestoringToSignedInAndOut() async throws {
        let transport = MockTransport()
        await transport.respond(to: "POST", path: "/token", json: Fixtures.sessionJSON(access: "access-2"))
        await transport.respond(to: "POST", path: "/logout", status: 204, json: "")
        let storage = InMemorySessionStorage()
        let auth = AuthClient(configuration: .init(url: Fixtures.url, storage: storage, transport: transport, autoRefresh: false))
        let model = AuthModel(client: auth)
        #expect(model.phase == .restoring)
        #expect(await Self.eventually { model.phase == .signedOut })

        // Observation tells SwiftUI when the phase changes.
        let changed = Mutexless()
        withObservationTracking {
            _ = model.phase
        } onChange: {
            changed.set()
        }
        try await auth.signIn(email: "ada@example.com", password: "correct horse battery staple")
        #expect(await Self.eventually { model.isSignedIn })
        #expect(changed.isSet)
        #expect(model.user?.email == "ada@example.com")
        #expect(model.lastEvent == .signedIn)
        try await auth.signOut()
        #expect(await Self.eventually { model.phase == .signedOut && model.user == nil })
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @MainActor @Test func aFailedLinkIsAnEventAndTheModelShowsIt() async throws {
        let auth = try await Fixtures.client(stored: try Fixtures.session())
        let model = AuthModel(client: auth)
        #expect(await Self.eventually { model.isSignedIn })
        var changes = auth.authStateChanges.makeAsyncIterator()
        _ = await changes.next()  // initialSession
        auth.handle(URL(string: "myapp://callback#error=access_denied&error_code=otp_expired&error_description=Email+link+is+invalid")!)
        let failed = await changes.next()
        #expect(failed?.event == .linkFailed)
        #expect(failed?.error?.code == .otpExpired)
        #expect(failed?.session?.accessToken == "access-1")
        #expect(await Self.eventually { model.linkError?.code == .otpExpired })
        #expect(model.isSignedIn)
    }

    /// Traps unless on the main actor's executor (which need not be the main thread on Linux).
    static func expectMainActor() {
        if #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) { MainActor.assertIsolated() }
    }

    @Test func completionHandlersRunOnTheMainActor() async throws {
        let transport = MockTransport()
        await transport.respond(to: "POST", path: "/token", json: Fixtures.sessionJSON())
        await transport.respond(to: "GET", path: "/device-keys", json: #"{"device_keys":[]}"#)
        let auth = try await Fixtures.client(transport: transport)
        let signedIn: Bool = await withCheckedContinuation { continuation in
            auth.signIn(email: "ada@example.com", password: "correct horse battery staple") { result in
                Self.expectMainActor()
                continuation.resume(returning: (try? result.get()) != nil)
            }
        }
        #expect(signedIn)
        let keys: Int = await withCheckedContinuation { continuation in
            auth.deviceKeys.list { result in
                Self.expectMainActor()
                continuation.resume(returning: (try? result.get())?.count ?? -1)
            }
        }
        #expect(keys == 0)
        let flow = auth.emailCodeFlow()
        let refused: Bool = await withCheckedContinuation { continuation in
            flow.submit(code: "123456") { result in
                Self.expectMainActor()
                continuation.resume(returning: (try? result.get()) == nil)
            }
        }
        #expect(refused)
    }

    @Test func aReleasedSignerStopsListening() async throws {
        let auth = try await Fixtures.client(storage: InMemorySessionStorage())
        let before = await auth.listeners.count
        do {
            let signer = EmbeddedSigner(auth: auth, storage: InMemorySessionStorage())
            _ = signer.state
            try await Task.sleep(nanoseconds: 50_000_000)
            #expect(await auth.listeners.count == before + 1)
        }
        // No auth event needed: the listener goes when the signer does.
        var waited = 0
        while await auth.listeners.count > before, waited < 250 {
            try await Task.sleep(nanoseconds: 20_000_000)
            waited += 1
        }
        #expect(await auth.listeners.count == before)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @MainActor @Test func aReleasedModelStopsListening() async throws {
        let auth = try await Fixtures.client(storage: InMemorySessionStorage())
        let before = await auth.listeners.count
        do {
            let model = AuthModel(client: auth)
            #expect(await Self.eventually { model.phase == .signedOut })
            #expect(await auth.listeners.count == before + 1)
        }
        var waited = 0
        while await auth.listeners.count > before, waited < 250 {
            try await Task.sleep(nanoseconds: 20_000_000)
            waited += 1
        }
        #expect(await auth.listeners.count == before)
    }

    @Test func changesAndStatesCompareForOnChange() throws {
        let session = try Fixtures.session()
        #expect(AuthStateChange(event: .signedIn, session: session) == AuthStateChange(event: .signedIn, session: session))
        #expect(AuthStateChange(event: .signedIn, session: session) != AuthStateChange(event: .signedOut, session: nil))
        let error = LatchkeyError(code: .otpExpired, message: "x", codeRefusal: .expired)
        #expect(CodeFlowState.signInError(error) == .signInError(error))
        let state = CodeRequired(
            email: "ada@example.com", sentTo: "a***@example.com", channel: .email, codeLength: 6,
            expiresAt: Date(timeIntervalSince1970: 100), resendAvailableAt: Date(timeIntervalSince1970: 60))
        #expect(CodeFlowState.awaitingCodeInput(state) == .awaitingCodeInput(state))
        #expect(SMSChannel(.whatsapp) == .whatsapp && SMSChannel(.email) == nil && SMSChannel.sms.codeChannel == .sms)
    }
}

/// A flag set from an observation callback.
final class Mutexless: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.lock(); value = true; lock.unlock() }
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
}
