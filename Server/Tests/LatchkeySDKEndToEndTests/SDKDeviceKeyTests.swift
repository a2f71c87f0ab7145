import Foundation
import Latchkey
import LatchkeyCore
import LatchkeyServer
import LatchkeyStore
import Testing

/// `DeviceKeys` and `signInWithDeviceKey` against a live server whose external URL is the one
/// the SDK uses.
@Suite struct SDKDeviceKeyTests {
    static let password = "correct horse battery staple"

    /// A client with its own storage and a software key store over `keys`.
    func client(_ server: LiveServer, storage: InMemorySessionStorage, keys: InMemorySessionStorage) -> AuthClient {
        AuthClient(
            configuration: .init(
                url: server.url, storage: storage, autoRefresh: false,
                deviceKeyStore: SoftwareDeviceKeyStore(storage: keys)))
    }

    func signedUp(_ server: LiveServer, _ auth: AuthClient, _ email: String) async throws -> Session {
        _ = try await auth.signUp(email: email, password: Self.password)
        return try await auth.verifyEmail(email: email, code: try await server.latestCode(email))
    }

    /// Issue #36, App Store: the user deletes their account from the app; nothing of it stays on
    /// the server or the device, and the address can sign up again.
    @Test func deletingTheAccountLeavesNothingHereOrThere() async throws {
        try await LiveServer.run(matchExternalURL: true) { server in
            let auth = client(server, storage: InMemorySessionStorage(), keys: InMemorySessionStorage())
            let session = try await signedUp(server, auth, "leaving@example.com")
            try await auth.deviceKeys.enroll(name: "Ada's iPhone")
            let changes = Task { await auth.authStateChanges.dropFirst().first { _ in true } }
            try await auth.deleteAccount()
            #expect(await changes.value?.event == .signedOut)
            #expect(await auth.currentSession == nil)
            #expect(await auth.deviceKeys.isEnrolled == false)
            await #expect { try await auth.signIn(email: "leaving@example.com", password: Self.password) } throws: {
                ($0 as? LatchkeyError)?.isInvalidCredentials == true
            }
            #expect(try await server.app.store.user(id: session.user.id) == nil)
            _ = try await auth.signUp(email: "leaving@example.com", password: Self.password)
        }
    }

    /// Issue #36 defect 5: a global sign-out ends every device key on the server, so this device
    /// forgets its own; a local one keeps it, and the next sign-in with it works.
    @Test func aGlobalSignOutForgetsThisDevicesKeyAndALocalOneKeepsIt() async throws {
        try await LiveServer.run(matchExternalURL: true) { server in
            let keys = InMemorySessionStorage()
            let auth = client(server, storage: InMemorySessionStorage(), keys: keys)
            _ = try await signedUp(server, auth, "global@example.com")
            try await auth.deviceKeys.enroll(name: "Ada's iPhone")
            try await auth.signOut(scope: .local)
            #expect(await auth.deviceKeys.isEnrolled)
            try await auth.signInWithDeviceKey()
            try await auth.signOut()  // .global
            #expect(await auth.deviceKeys.isEnrolled == false)
            // No prompt for a dead key: the SDK knows at once there is none.
            await #expect {
                try await auth.signInWithDeviceKey()
            } throws: { ($0 as? LatchkeyError)?.code == .deviceKeyMissing }
        }
    }

    @Test func anEnrolledDeviceSignsInWithoutAPasswordUntilItsKeyIsRevoked() async throws {
        try await LiveServer.run(matchExternalURL: true) { server in
            let keys = InMemorySessionStorage()
            let auth = client(server, storage: InMemorySessionStorage(), keys: keys)
            let first = try await signedUp(server, auth, "touch@example.com")
            #expect(await auth.deviceKeys.isEnrolled == false)
            let key = try await auth.deviceKeys.enroll(name: "Ada's iPhone")
            #expect(await auth.deviceKeys.isEnrolled)
            // A local sign-out keeps the device key (a global one ends it, like every session).
            try await auth.signOut(scope: .local)

            let session = try await auth.signInWithDeviceKey(reason: "Sign in to Acme")
            #expect(session.user.id == first.user.id)
            #expect(try await auth.user().email == "touch@example.com")
            // Twice in a row: each sign-in signs a fresh assertion.
            try await auth.signOut(scope: .local)
            try await auth.signInWithDeviceKey()
            let listed = try await auth.deviceKeys.list()
            #expect(listed.map(\.id) == [key.id])
            #expect(listed.first?.lastUsedAt != nil)

            // Enrolling again replaces this device's key on the server too.
            let second = try await auth.deviceKeys.enroll(name: "Ada's iPhone")
            #expect(try await auth.deviceKeys.list().map(\.id) == [second.id])

            try await auth.deviceKeys.revoke(second)
            #expect(await auth.deviceKeys.isEnrolled == false)
            #expect(try await auth.deviceKeys.list().isEmpty)
            try await auth.signOut()
            await #expect {
                try await auth.signInWithDeviceKey()
            } throws: { error in
                (error as? LatchkeyError).map { $0.code == .deviceKeyMissing && $0.isDeviceKeyEnrollmentNeeded } ?? false
            }
        }
    }

    @Test func aKeyTheServerNoLongerAcceptsAsksTheAppToEnrolAgain() async throws {
        try await LiveServer.run(matchExternalURL: true) { server in
            let phone = client(server, storage: InMemorySessionStorage(), keys: InMemorySessionStorage())
            _ = try await signedUp(server, phone, "revoked@example.com")
            try await phone.deviceKeys.enroll(name: "Phone")
            try await phone.signOut(scope: .local)

            // On the laptop the user changes the password: every device key ends.
            let laptop = client(server, storage: InMemorySessionStorage(), keys: InMemorySessionStorage())
            try await laptop.signIn(email: "revoked@example.com", password: Self.password)
            try await laptop.updatePassword("an entirely new passphrase")

            let error = await #expect(throws: LatchkeyError.self) { try await phone.signInWithDeviceKey() }
            #expect(error?.code == .deviceKeyNotFound)
            #expect(error?.isDeviceKeyEnrollmentNeeded == true)
            #expect(await phone.deviceKeys.isEnrolled == false)
            #expect(await phone.currentSession == nil)
        }
    }

    @Test func aPhoneRestoredFromABackupWithoutItsKeyIsToldToEnrolAgain() async throws {
        try await LiveServer.run(matchExternalURL: true) { server in
            let storage = InMemorySessionStorage()
            let old = client(server, storage: storage, keys: InMemorySessionStorage())
            _ = try await signedUp(server, old, "restored@example.com")
            try await old.deviceKeys.enroll(name: "Old phone")
            try await old.signOut(scope: .local)

            // The backup brings the app's storage but not the key (a Secure Enclave key never leaves
            // its phone).
            let restored = client(server, storage: storage, keys: InMemorySessionStorage())
            #expect(await restored.deviceKeys.isEnrolled)
            let error = await #expect(throws: LatchkeyError.self) { try await restored.signInWithDeviceKey() }
            #expect(error?.code == .deviceKeyMissing)
            #expect(await restored.deviceKeys.isEnrolled == false)

            // Signed in another way, the new phone enrols and signs in with its own key.
            try await restored.signIn(email: "restored@example.com", password: Self.password)
            try await restored.deviceKeys.enroll(name: "New phone")
            try await restored.signOut(scope: .local)
            #expect(try await restored.signInWithDeviceKey().user.email == "restored@example.com")
        }
    }

    @Test func enrollingNeedsASignedInUser() async throws {
        try await LiveServer.run(matchExternalURL: true) { server in
            let keys = InMemorySessionStorage()
            let auth = client(server, storage: InMemorySessionStorage(), keys: keys)
            let error = await #expect(throws: LatchkeyError.self) { try await auth.deviceKeys.enroll(name: "Phone") }
            #expect(error?.isSessionMissing == true)
            #expect(await auth.deviceKeys.isEnrolled == false)
        }
    }
}
