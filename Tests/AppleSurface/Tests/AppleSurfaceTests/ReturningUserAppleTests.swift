import AuthenticationServices
import Foundation
import LatchkeyTesting
import Testing

@testable import Latchkey

/// Issue #37, Apple's part: with `preferImmediatelyAvailableCredentials` Apple answers
/// `.canceled` both when the device holds no passkey (at once, no sheet) and when the user
/// dismissed the sheet. The SDK tells them apart by time, so a dismissed sheet is not read as
/// "no passkey" (and the chain stops instead of prompting again).
extension AuthenticationServicesTests {  // the same stand-in state: one test at a time
    static let signInOptions = #"""
        {"challenge_id":"7d1c4f5e-64a2-4b0e-9a51-0c1d2e3f4a5b","expires_at":1800000300,"options":{
        "challenge":"AQIDBA","rpId":"example.com","userVerification":"preferred","timeout":300000}}
        """#

    /// Cancels every request after `delay` (nothing: at once), as Apple does.
    static func cancelAfter(_ delay: Double?, code: ASAuthorizationError.Code = .canceled) {
        StandIn.authorizationBehaviour = { controller, _ in
            guard let delay else { return controller.finish(.failure(ASAuthorizationError(code))) }
            let weak = Weak(controller)
            DispatchQueue.main.asyncAfter(deadline: .now() + delay) {
                (weak.object as? ASAuthorizationController)?.finish(.failure(ASAuthorizationError(code)))
            }
        }
    }

    @Test func aCancelAtOnceIsNoPasskeyHereAndALaterOneIsTheUsers() async throws {
        let anchors = Anchors()
        func run(immediately: Bool) async -> LatchkeyError? {
            do {
                _ = try await AuthorizationRunner.run(
                    ASAuthorizationAppleIDProvider().createRequest(), presentationContextProvider: anchors,
                    preferImmediatelyAvailableCredentials: immediately
                ) { _ in 1 }
                return nil
            } catch { return error as? LatchkeyError }
        }
        Self.cancelAfter(nil)
        #expect(await run(immediately: true)?.isNoCredentialOnDevice == true)
        #expect(await run(immediately: false)?.isUserCancelled == true)
        Self.cancelAfter(nil, code: .notInteractive)
        #expect(await run(immediately: true)?.isNoCredentialOnDevice == true)
        Self.cancelAfter(1.0)
        #expect(await run(immediately: true)?.isUserCancelled == true)
    }

    /// The chain with the SDK's own passkey step: no passkey here → the device key; the sheet
    /// dismissed → stop, no prompt and nothing sent.
    @Test func theChainsPasskeyStepFallsBackOnlyWhenThereIsNoPasskey() async throws {
        let anchors = Anchors()
        let passkey = ReturningUserStep(method: .passkey) { auth, _ in
            try await auth.signInWithPasskey(presentationContextProvider: anchors, preferImmediatelyAvailableCredentials: true)
        }
        for (delay, expected) in [(nil, "signedIn deviceKey"), (1.0, "cancelled passkey")] as [(Double?, String)] {
            Self.cancelAfter(delay)
            let transport = MockTransport()
            await transport.respond(to: "POST", path: "/passkeys/authentication/options", json: Self.signInOptions)
            await transport.respond(to: "POST", path: "/token", json: ReturningUserApple.sessionJSON)
            let storage = InMemorySessionStorage()
            let keys = SoftwareDeviceKeyStore(storage: storage)
            let tag = "latchkey.device-key.t"
            _ = try await keys.createKey(tag: tag)
            await storage.save(
                try JSONEncoder().encode(
                    DeviceKeyEnrollment(keyID: UUID().uuidString.lowercased(), userID: ReturningUserApple.userID, name: "Phone", tag: tag)),
                key: "latchkey.session.device-key")
            await storage.save(try JSONEncoder().encode(ReturningUserApple.hint), key: "latchkey.session.returning-user")
            let auth = AuthClient(
                configuration: .init(
                    url: URL(string: "https://auth.example.com")!, storage: storage, transport: transport, autoRefresh: false,
                    deviceKeyStore: keys))
            await auth.waitUntilReady()
            switch try await auth.signInReturningUser(steps: [passkey, .deviceKey()]) {
            case .signedIn(_, let method): #expect(expected == "signedIn \(method.rawValue)")
            case .cancelled(let method, _): #expect(expected == "cancelled \(method.rawValue)")
            default: Issue.record("unexpected answer")
            }
            #expect(await transport.count("POST", "/token") == (expected == "signedIn deviceKey" ? 1 : 0))
        }
    }
}

enum ReturningUserApple {
    static let userID = "8e1a0c52-6b8b-4c69-9f21-0d6c4d1d5e11"
    static let hint = ReturningUser(
        userID: UUID(uuidString: userID)!, email: "ada@example.com", phone: nil, maskedAddress: "a***@example.com",
        passkeyRegisteredHere: true, deviceKeyEnrolledHere: false, lastSignedInAt: Date(timeIntervalSince1970: 1_790_000_000))
    static let sessionJSON =
        #"{"access_token":"a","token_type":"bearer","expires_in":3600,"expires_at":4102444800,"refresh_token":"r","user":{"id":"\#(userID)","aud":"authenticated","role":"authenticated","email":"ada@example.com","phone":"","app_metadata":{},"user_metadata":{},"identities":[],"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z","is_anonymous":false}}"#
}
