import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyCore
import LatchkeyServer
import Testing

/// What a stolen password alone must not reach once a user has a second factor, and device keys
/// that end with the sessions of their devices (issue #14, item 5).
@Suite struct SecondFactorGuardTests {
    static let password = "correct horse battery staple"

    /// A user with a verified factor: the aal2 session that verified it, a fresh aal1 password
    /// session, and the factor.
    static func userWithFactor(
        _ email: String, _ client: any TestClientProtocol, _ app: UseCases, time: ManualTimeSource
    ) async throws -> (aal2: Session, aal1: Session) {
        let first = try await client.signUpConfirmed(email, password: password, app: app)
        let (factor, totp, _) = try await MFATests.enroll(client, first)
        let verified = try await MFATests.verify(client, first, factor: factor, code: totp.code(step: totp.step(at: time.now())))
        let aal2 = try verified.decode(Session.self)
        let aal1 = try await client.send(
            .post, "/token?grant_type=password", json: #"{"email":"\#(email)","password":"\#(password)"}"#
        ).decode(Session.self)
        #expect(await app.issuer.verify(aal1.accessToken)?.aal == "aal1")
        return (aal2, aal1)
    }

    @Test func anAAL1SessionOfAUserWithAFactorReachesNoKeyMaterial() async throws {
        let time = ManualTimeSource(Date())
        try await TestServer().run(time: time) { client, app async throws in
            let (aal2, aal1) = try await Self.userWithFactor("material@example.com", client, app, time: time)
            let vault = try await client.send(
                .post, "/vaults", json: #"{"verifier":"\#(KeyVaultTests.verifier(1))"}"#, bearer: aal2.accessToken
            ).decode(KeyVault.self)
            #expect(
                try await client.send(.put, "/signer/backup", json: SignerBackupTests.passwordBackup(), bearer: aal2.accessToken).status
                    == .ok)

            let guarded: [(HTTPRequest.Method, String, String?)] = [
                (.post, "/device-keys", #"{"name":"Thief","public_key":\#(TestDevice().jwk)}"#),
                (.post, "/vaults", #"{"verifier":"\#(KeyVaultTests.verifier(2))"}"#),
                (.post, "/vaults/\(vault.id)/unlock", #"{"verifier":"\#(KeyVaultTests.verifier(1))"}"#),
                (.delete, "/vaults/\(vault.id)", nil),
                (.get, "/signer/backup", nil),
                (.put, "/signer/backup", SignerBackupTests.passwordBackup()),
                (.delete, "/signer/backup", nil),
                (.post, "/signer/recovery-key", "{}"),
            ]
            for (method, path, body) in guarded {
                let answer = try await client.send(method, path, json: body, bearer: aal1.accessToken)
                #expect(answer.status == .unauthorized && answer.errorCode == "insufficient_aal", "\(method) \(path)")
            }
            // Nothing was spent: the vault took no wrong attempt, the backup is still there.
            let listed = try await client.send(.get, "/vaults", bearer: aal1.accessToken).decode(KeyVaultList.self)
            #expect(listed.vaults.map(\.failedAttempts) == [0])
            #expect(try await client.send(.get, "/device-keys", bearer: aal1.accessToken).status == .ok)

            // The same requests at aal2 go through.
            #expect(try await client.register(TestDevice(), session: aal2).name == "Ada's iPhone")
            let unlocked = try await client.send(
                .post, "/vaults/\(vault.id)/unlock", json: #"{"verifier":"\#(KeyVaultTests.verifier(1))"}"#, bearer: aal2.accessToken)
            #expect(unlocked.status == .ok)
            #expect(try await client.send(.get, "/signer/backup", bearer: aal2.accessToken).status == .ok)
            #expect(try await client.send(.post, "/signer/recovery-key", json: "{}", bearer: aal2.accessToken).status == .ok)
            #expect(try await client.send(.delete, "/vaults/\(vault.id)", bearer: aal2.accessToken).status == .noContent)
        }
    }

    @Test func signingOutOtherDevicesEndsTheirKeysAndKeepsThisOnes() async throws {
        try await TestServer().run { client, app async throws in
            let phoneSession = try await client.signUpConfirmed("others@example.com", password: Self.password, app: app)
            let userID = phoneSession.user.id.uuidString.lowercased()
            let signIn = #"{"email":"others@example.com","password":"\#(Self.password)"}"#
            let laptopSession = try await client.send(.post, "/token?grant_type=password", json: signIn).decode(Session.self)
            let phone = TestDevice()
            let laptop = TestDevice()
            let phoneKey = try await client.register(phone, name: "Phone", session: phoneSession)
            let laptopKey = try await client.register(laptop, name: "Laptop", session: laptopSession)

            // The phone signs in with its key (its key now belongs to that session), then signs out
            // the other devices: the laptop's key ends with the laptop's session.
            let viaKey = try await client.deviceSignIn(try await phone.assertion(keyID: phoneKey.id, userID: userID))
                .decode(Session.self)
            #expect(try await client.send(.post, "/logout?scope=others", bearer: viaKey.accessToken).status == .noContent)
            let laptopAgain = try await client.deviceSignIn(try await laptop.assertion(keyID: laptopKey.id, userID: userID))
            #expect(laptopAgain.oauthError == "invalid_grant")
            #expect(try await client.deviceSignIn(try await phone.assertion(keyID: phoneKey.id, userID: userID)).status == .ok)
            let left = try await client.send(.get, "/device-keys", bearer: viaKey.accessToken).decode(DeviceKeyList.self)
            #expect(left.deviceKeys.map(\.id) == [phoneKey.id])
        }
    }

    @Test func aFactorsFirstVerificationEndsTheKeysOfOtherSessions() async throws {
        let time = ManualTimeSource(Date())
        try await TestServer().run(time: time) { client, app async throws in
            let owner = try await client.signUpConfirmed("thief@example.com", password: Self.password, app: app)
            let userID = owner.user.id.uuidString.lowercased()
            // A password thief signs in and registers a key of their own.
            let thief = try await client.send(
                .post, "/token?grant_type=password", json: #"{"email":"thief@example.com","password":"\#(Self.password)"}"#
            ).decode(Session.self)
            let thiefDevice = TestDevice()
            let thiefKey = try await client.register(thiefDevice, name: "Thief", session: thief)
            let ownerDevice = TestDevice()
            let ownerKey = try await client.register(ownerDevice, name: "Owner", session: owner)

            // The owner turns on a second factor: the thief's session and key end, the owner's stay.
            let (factor, totp, _) = try await MFATests.enroll(client, owner)
            let verified = try await MFATests.verify(client, owner, factor: factor, code: totp.code(step: totp.step(at: time.now())))
            #expect(verified.status == .ok)
            // The assertions carry the wall clock's iat: bring the server's clock up to it.
            time.advance(by: max(0, Date().timeIntervalSince(time.now())))
            let refused = try await client.deviceSignIn(try await thiefDevice.assertion(keyID: thiefKey.id, userID: userID))
            #expect(refused.oauthError == "invalid_grant")
            let kept = try await client.deviceSignIn(try await ownerDevice.assertion(keyID: ownerKey.id, userID: userID))
            #expect(kept.status == .ok, "\(kept.text)")
        }
    }

    @Test func capsHoldUnderConcurrentRegistrations() async throws {
        try await TestServer().run { client, app async throws in
            let session = try await client.signUpConfirmed("caps@example.com", app: app)
            let devices = (0..<26).map { _ in TestDevice() }
            let keys = try await client.concurrently(26, .post, "/device-keys", bearer: session.accessToken) {
                #"{"name":"Device \#($0)","public_key":\#(devices[$0].jwk)}"#
            }
            #expect(keys.filter { $0.status == .created }.count == 20)
            #expect(keys.filter { $0.errorCode == "validation_failed" }.count == 6)
            let listed = try await client.send(.get, "/device-keys", bearer: session.accessToken).decode(DeviceKeyList.self)
            #expect(listed.deviceKeys.count == 20)

            let vaults = try await client.concurrently(26, .post, "/vaults", bearer: session.accessToken) {
                #"{"verifier":"\#(KeyVaultTests.verifier(UInt8($0)))"}"#
            }
            #expect(vaults.filter { $0.status == .created }.count == 20)
            #expect(vaults.filter { $0.errorCode == "validation_failed" }.count == 6)
        }
    }
}
