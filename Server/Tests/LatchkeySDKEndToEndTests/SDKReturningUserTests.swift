import Foundation
import Latchkey
import LatchkeyCore
import LatchkeyServer
import LatchkeyStore
import Testing

/// Issue #37 against a live server: a returning user signs in with this device's key until it
/// is revoked from another device; then the chain says so and falls back to a code to the
/// remembered address, and after it offers the device key again.
@Suite struct SDKReturningUserTests {
    @Test func theDeviceKeyUntilItIsRevokedThenACodeThenTheKeyAgain() async throws {
        try await LiveServer.run(matchExternalURL: true) { server in
            let tests = SDKDeviceKeyTests()
            let phone = tests.client(server, storage: InMemorySessionStorage(), keys: InMemorySessionStorage())
            #expect(try await phone.signInReturningUser(steps: [.deviceKey()]).isUnknownUser)

            _ = try await tests.signedUp(server, phone, "returning@example.com")
            let key = try await phone.deviceKeys.enroll(name: "Ada's iPhone")
            #expect(await phone.suggestedUpgrade(steps: [.deviceKey()]) == nil)
            try await phone.signOut(scope: .local)
            #expect(await phone.returningUser()?.deviceKeyEnrolledHere == true)

            // Back later: the device key, no code.
            guard case .signedIn(let session, method: .deviceKey) = try await phone.signInReturningUser(steps: [.deviceKey()]) else {
                Issue.record("expected a device-key sign-in")
                return
            }
            #expect(session.user.email == "returning@example.com")
            try await phone.signOut(scope: .local)

            // The user revokes the phone's key from the laptop.
            let laptop = tests.client(server, storage: InMemorySessionStorage(), keys: InMemorySessionStorage())
            try await laptop.signIn(email: "returning@example.com", password: SDKDeviceKeyTests.password)
            try await laptop.deviceKeys.revoke(key)

            guard case .codeRequired(let sent, let fallback) = try await phone.signInReturningUser(steps: [.deviceKey()]) else {
                Issue.record("expected a code")
                return
            }
            #expect(fallback.reason(for: .deviceKey) == .deviceKeyRevoked && fallback.notable?.reason == .deviceKeyRevoked)
            #expect(await phone.deviceKeys.isEnrolled == false)
            #expect(sent.email == "returning@example.com")
            try await sent.submit(code: try await server.latestCode("returning@example.com"))
            #expect(await phone.currentSession?.user.email == "returning@example.com")

            // After the code, the device key is offered again, and works.
            #expect(await phone.suggestedUpgrade(steps: [.deviceKey()]) == .enrollDeviceKey)
            try await phone.deviceKeys.enroll(name: "Ada's iPhone")
            try await phone.signOut(scope: .local)
            guard case .signedIn(_, method: .deviceKey) = try await phone.signInReturningUser(steps: [.deviceKey()]) else {
                Issue.record("expected a device-key sign-in")
                return
            }
        }
    }

    /// A remembered account deleted since (by the admin, or on another device): the code request
    /// (`intent: signin`, as `signInWithEmailCode(createUser: false)` sends) is refused, and the
    /// chain answers `.unknownUser`, forgets the hint and creates no account.
    @Test func aRememberedAccountDeletedSinceIsForgotten() async throws {
        try await LiveServer.run(matchExternalURL: true) { server in
            let tests = SDKDeviceKeyTests()
            let phone = tests.client(server, storage: InMemorySessionStorage(), keys: InMemorySessionStorage())
            _ = try await tests.signedUp(server, phone, "gone@example.com")
            try await phone.signOut(scope: .local)
            let user = try #require(await phone.returningUser())
            #expect(try await server.app.store.deleteUser(id: user.userID))
            #expect(try await phone.signInReturningUser(steps: [.deviceKey()]).isUnknownUser)
            #expect(await phone.returningUser() == nil)
            #expect(try await server.app.store.user(email: "gone@example.com") == nil)
        }
    }
}

extension ReturningUserSignIn {
    var isUnknownUser: Bool {
        if case .unknownUser = self { return true }
        return false
    }
}
