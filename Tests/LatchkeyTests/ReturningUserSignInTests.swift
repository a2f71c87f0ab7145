import Crypto
import Foundation
import LatchkeyTesting
import Testing

@testable import Latchkey

/// Issue #37: `signInReturningUser`'s decision table, with a fake of each authenticator (a
/// passkey step that signs in, finds none, is cancelled or is offline; a device-key store whose
/// key signs, is lost to new biometrics or is cancelled; a server that accepts the key or no
/// longer does) and a scripted server for the code.
@Suite struct ReturningUserSignInTests {
    static let sent = #"{"message_id":"m1","code_length":6,"expires_in":600,"resend_after":60,"max_attempts":5}"#
    static let otherUser = "11111111-2222-3333-4444-555555555555"

    /// A device-key store whose key signs, is lost, or whose prompt the user dismisses; it
    /// counts the prompts.
    actor FakeKeyStore: DeviceKeyStore {
        enum Behaviour { case signs, lost, cancels }
        var behaviour: Behaviour
        private(set) var prompts = 0
        private var keys: [String: P256.Signing.PrivateKey] = [:]

        init(_ behaviour: Behaviour) { self.behaviour = behaviour }

        func createKey(tag: String) async throws -> P256.Signing.PublicKey {
            let key = P256.Signing.PrivateKey()
            keys[tag] = key
            return key.publicKey
        }

        func sign(_ data: Data, tag: String, reason: String) async throws -> Data? {
            prompts += 1
            switch behaviour {
            case .signs: return try keys[tag, default: P256.Signing.PrivateKey()].signature(for: data).rawRepresentation
            case .lost: return nil
            case .cancels: throw LatchkeyError(code: .userCancelled, message: "The user cancelled the sign-in")
            }
        }

        func deleteKey(tag: String) async throws { keys[tag] = nil }
    }

    /// What the fake passkey step does.
    enum Passkey { case signsIn, absent, cancelled, offline, refused }

    /// A passkey step doing `behaviour`, counting its runs in `runs`.
    static func passkeyStep(_ behaviour: Passkey, runs: Counter) -> ReturningUserStep {
        ReturningUserStep(method: .passkey) { auth, _ in
            await runs.increment()
            switch behaviour {
            case .signsIn:
                let credential = PasskeyCredential.assertion(
                    credentialID: Data([1]), clientDataJSON: Data("{}".utf8), authenticatorData: Data([2]), signature: Data([3]),
                    userHandle: Data([4]))
                return try await auth.signInWithPasskey(challengeID: UUID(), credential: credential)
            case .absent: throw LatchkeyError(code: .noCredentialOnDevice, message: "none")
            case .cancelled: throw LatchkeyError(code: .userCancelled, message: "cancelled")
            case .offline: throw LatchkeyError(code: .networkError, message: "offline")
            case .refused: throw LatchkeyError(code: "feature_disabled", message: "Passkeys are off", status: 400)
            }
        }
    }

    actor Counter {
        private(set) var value = 0
        func increment() { value += 1 }
    }

    /// A client on this device: `remembered` is the hint (nil: nobody), `enrolledFor` the user
    /// whose device key this device holds (nil: none).
    struct Device {
        let auth: AuthClient
        let transport: MockTransport
        let keys: FakeKeyStore
        let storage: InMemorySessionStorage

        init(
            keys: FakeKeyStore.Behaviour = .signs, remembered: ReturningUser? = Device.ada, enrolledFor: String? = Fixtures.userID,
            serverKnowsKey: Bool = true
        ) async throws {
            transport = MockTransport()
            storage = InMemorySessionStorage()
            self.keys = FakeKeyStore(keys)
            if let remembered { await storage.save(try JSONEncoder().encode(remembered), key: "latchkey.session.returning-user") }
            if let enrolledFor {
                _ = try await self.keys.createKey(tag: "latchkey.device-key.t1")
                let enrollment = DeviceKeyEnrollment(
                    keyID: UUID().uuidString.lowercased(), userID: enrolledFor, name: "Phone", tag: "latchkey.device-key.t1")
                await storage.save(try JSONEncoder().encode(enrollment), key: "latchkey.session.device-key")
            }
            auth = AuthClient(
                configuration: .init(
                    url: Fixtures.url, storage: storage, transport: transport, autoRefresh: false, deviceKeyStore: self.keys))
            await auth.waitUntilReady()
            if serverKnowsKey {
                await transport.respond(to: "POST", path: "/token", json: Fixtures.sessionJSON(access: "device-key"))
            } else {
                await transport.respond(to: "POST", path: "/token", status: 400, json: Fixtures.error("device_key_not_found", "Not found"))
            }
            await transport.respond(to: "POST", path: "/passkeys/authentication/verify", json: Fixtures.sessionJSON(access: "passkey"))
            await transport.respond(to: "POST", path: "/otp", json: ReturningUserSignInTests.sent)
        }

        static let ada = ReturningUser(
            userID: UUID(uuidString: Fixtures.userID)!, email: "ada@example.com", phone: nil, maskedAddress: "a***@example.com",
            passkeyRegisteredHere: true, deviceKeyEnrolledHere: false, lastSignedInAt: Date(timeIntervalSince1970: 1_790_000_000))

        var otpBodies: [[String: JSONValue]] {
            get async { await transport.requests.filter { $0.path == "/otp" }.compactMap(\.json) }
        }
    }

    /// One row: the fakes, the call, what it must answer.
    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        var passkey: Passkey? = .absent
        var keys: FakeKeyStore.Behaviour = .signs
        var enrolledFor: String? = Fixtures.userID
        var serverKnowsKey = true
        var continueAfterCancel = false
        var deviceKeyFirst = false
        /// The answer: "signedIn passkey", "code", "cancelled deviceKey"…
        let answer: String
        var skipped: [Fallback.Skip] = []
        var prompts = 0
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "a passkey on the device signs in, nothing else is tried", passkey: .signsIn, answer: "signedIn passkey"),
        Row(name: "no passkey: the device key signs in with one prompt", answer: "signedIn deviceKey", prompts: 1),
        Row(
            name: "no passkey, no device key: a code, with no prompt", enrolledFor: nil, answer: "code",
            skipped: [.init(method: .passkey, reason: .noPasskeyOnDevice), .init(method: .deviceKey, reason: .noDeviceKeyOnDevice)]),
        Row(
            name: "another user's device key is not used", enrolledFor: ReturningUserSignInTests.otherUser, answer: "code",
            skipped: [.init(method: .passkey, reason: .noPasskeyOnDevice), .init(method: .deviceKey, reason: .noDeviceKeyOnDevice)]),
        Row(
            name: "the passkey sheet dismissed stops the chain, nothing is sent", passkey: .cancelled, answer: "cancelled passkey",
            skipped: [.init(method: .passkey, reason: .userCancelled)]),
        Row(
            name: "…unless the app asks to go on", passkey: .cancelled, continueAfterCancel: true, answer: "signedIn deviceKey",
            prompts: 1),
        Row(
            name: "the biometric prompt dismissed stops the chain", keys: .cancels, answer: "cancelled deviceKey",
            skipped: [.init(method: .passkey, reason: .noPasskeyOnDevice), .init(method: .deviceKey, reason: .userCancelled)], prompts: 1),
        Row(
            name: "biometrics changed: the key is lost, a code", keys: .lost, answer: "code",
            skipped: [.init(method: .passkey, reason: .noPasskeyOnDevice), .init(method: .deviceKey, reason: .biometryChanged)],
            prompts: 1),
        Row(
            name: "the server no longer accepts the key: a code", serverKnowsKey: false, answer: "code",
            skipped: [.init(method: .passkey, reason: .noPasskeyOnDevice), .init(method: .deviceKey, reason: .deviceKeyRevoked)],
            prompts: 1),
        Row(
            name: "the passkey step offline, the device key works", passkey: .offline, answer: "signedIn deviceKey", prompts: 1),
        Row(
            name: "the passkey step offline, no device key: a code", passkey: .offline, enrolledFor: nil, answer: "code",
            skipped: [.init(method: .passkey, reason: .offline), .init(method: .deviceKey, reason: .noDeviceKeyOnDevice)]),
        Row(
            name: "passkeys refused by the server are passed over", passkey: .refused, enrolledFor: nil, answer: "code",
            skipped: [
                .init(
                    method: .passkey, reason: .failed(LatchkeyError(code: "feature_disabled", message: "Passkeys are off", status: 400))),
                .init(method: .deviceKey, reason: .noDeviceKeyOnDevice),
            ]),
        Row(
            name: "the app's order: the device key first", passkey: .signsIn, deviceKeyFirst: true, answer: "signedIn deviceKey", prompts: 1
        ),
        Row(name: "no passkey step at all (Linux, watchOS)", passkey: nil, answer: "signedIn deviceKey", prompts: 1),
    ]

    @Test(arguments: rows) func decisionTable(_ row: Row) async throws {
        let device = try await Device(keys: row.keys, enrolledFor: row.enrolledFor, serverKnowsKey: row.serverKnowsKey)
        let runs = Counter()
        var steps: [ReturningUserStep] = [.deviceKey(reason: "Sign in to Acme")]
        if let passkey = row.passkey {
            steps.insert(Self.passkeyStep(passkey, runs: runs), at: row.deviceKeyFirst ? 1 : 0)
        }
        let answer = try await device.auth.signInReturningUser(steps: steps, continueAfterCancel: row.continueAfterCancel)

        switch answer {
        case .signedIn(let session, let method):
            #expect(row.answer == "signedIn \(method.rawValue)")
            #expect(session.accessToken == (method == .passkey ? "passkey" : "device-key"))
            #expect(await device.auth.currentSession?.accessToken == session.accessToken)
            #expect(row.skipped.isEmpty)
        case .codeRequired(let sent, let fallback):
            #expect(row.answer == "code")
            #expect(fallback.skipped == row.skipped)
            #expect(sent.email == "ada@example.com" && sent.intent == .signIn)
            let bodies = await device.otpBodies
            #expect(bodies.count == 1)
            #expect(bodies.first?["email"] == "ada@example.com" && bodies.first?["create_user"] == false)
        case .cancelled(let method, let fallback):
            #expect(row.answer == "cancelled \(method.rawValue)")
            #expect(fallback.skipped == row.skipped)
            #expect(await device.otpBodies.isEmpty)
            #expect(await device.auth.currentSession == nil)
        case .unknownUser:
            Issue.record("unknownUser for a remembered user")
        }
        #expect(await device.keys.prompts == row.prompts)
        if row.deviceKeyFirst { #expect(await runs.value == 0) }
        // A dead key is forgotten, so the next launch does not prompt for it.
        let reason = { () -> FallbackReason? in
            if case .codeRequired(_, let fallback) = answer { return fallback.reason(for: .deviceKey) }
            return nil
        }()
        if reason == .biometryChanged || reason == .deviceKeyRevoked {
            #expect(await device.auth.deviceKeys.isEnrolled == false)
        }
        // The remembered address went to the server only with the code request.
        for request in await device.transport.requests where request.path != "/otp" {
            #expect(!String(decoding: request.body ?? Data(), as: UTF8.self).contains("ada@example.com"))
        }
    }

    @Test func nobodyRememberedAsksNothing() async throws {
        let device = try await Device(remembered: nil)
        guard case .unknownUser = try await device.auth.signInReturningUser(steps: [.deviceKey()]) else {
            Issue.record("expected unknownUser")
            return
        }
        #expect(await device.transport.requests.isEmpty)
        #expect(await device.keys.prompts == 0)
    }

    /// The server refuses the code for an unknown address (GoTrue's "signups not allowed"): the
    /// account was deleted elsewhere. The chain answers `.unknownUser` and forgets the hint.
    @Test func aRememberedAccountTheServerNoLongerKnowsIsForgotten() async throws {
        let transport = MockTransport()
        let storage = InMemorySessionStorage()
        await storage.save(try JSONEncoder().encode(Device.ada), key: "latchkey.session.returning-user")
        await transport.respond(to: "POST", path: "/otp", status: 422, json: Fixtures.error("otp_disabled", "Signups not allowed for otp"))
        let auth = AuthClient(configuration: .init(url: Fixtures.url, storage: storage, transport: transport, autoRefresh: false))
        await auth.waitUntilReady()
        guard case .unknownUser = try await auth.signInReturningUser(steps: [.deviceKey()]) else {
            Issue.record("expected unknownUser")
            return
        }
        #expect(await auth.returningUser() == nil)
    }

    @Test func everythingOfflineThrowsAndKeepsWhatTheDeviceHolds() async throws {
        let device = try await Device()
        await device.transport.setNetworkDown(true)
        await #expect { try await device.auth.signInReturningUser(steps: [.deviceKey()]) } throws: {
            ($0 as? LatchkeyError)?.isNetworkError == true
        }
        #expect(await device.auth.returningUser() != nil)
        #expect(await device.auth.deviceKeys.isEnrolled)
    }

    @Test func aNumberGetsAnSMSAndTheAppMayPreferIt() async throws {
        var phoneOnly = Device.ada
        phoneOnly.email = nil
        phoneOnly.phone = "+15551234567"
        let device = try await Device(remembered: phoneOnly, enrolledFor: nil)
        guard case .codeRequired(let sent, _) = try await device.auth.signInReturningUser(steps: []) else {
            Issue.record("expected a code")
            return
        }
        #expect(sent.phone == "+15551234567")
        var both = Device.ada
        both.phone = "+15551234567"
        let second = try await Device(remembered: both, enrolledFor: nil)
        _ = try await second.auth.signInReturningUser(steps: [], code: .phone(.whatsapp))
        let bodies = await device.otpBodies + second.otpBodies
        #expect(bodies.map { $0["phone"] } == ["+15551234567", "+15551234567"])
        #expect(bodies.map { $0["channel"] } == ["sms", "whatsapp"])
        #expect(bodies.allSatisfy { $0["create_user"] == false && $0["email"] == nil })
    }

    @Test func afterACodeTheStrongestMissingWayInIsSuggested() async throws {
        var noPasskey = Device.ada
        noPasskey.passkeyRegisteredHere = false
        let device = try await Device(remembered: noPasskey, enrolledFor: nil)
        let passkey = Self.passkeyStep(.absent, runs: Counter())
        #expect(await device.auth.suggestedUpgrade(steps: [passkey, .deviceKey()]) == nil)  // nobody signed in
        guard case .codeRequired(let sent, _) = try await device.auth.signInReturningUser(steps: [passkey, .deviceKey()]) else {
            Issue.record("expected a code")
            return
        }
        await device.transport.respond(to: "POST", path: "/verify", json: Fixtures.sessionJSON())
        _ = try await sent.submit(code: "123456")
        #expect(await device.auth.suggestedUpgrade(steps: [passkey, .deviceKey()]) == .registerPasskey)
        #expect(await device.auth.suggestedUpgrade(steps: [.deviceKey()]) == .enrollDeviceKey)

        let enrolled = try await Device()  // Ada holds a passkey from here and this device's key
        await enrolled.transport.respond(to: "POST", path: "/token", json: Fixtures.sessionJSON())
        _ = try await enrolled.auth.signInReturningUser(steps: [.deviceKey()])
        #expect(await enrolled.auth.suggestedUpgrade(steps: [passkey, .deviceKey()]) == nil)
    }
}

/// A double tap, or a view appearing twice: one chain, one prompt, one code.
@Suite struct ReturningUserRaceTests {
    actor Prompts {
        var count = 0
        func prompt() async throws {
            count += 1
            try await Task.sleep(for: .milliseconds(100))
            throw LatchkeyError(code: .deviceKeyNotFound, message: "revoked")
        }
    }

    @Test func concurrentCallsShareOneChain() async throws {
        let device = try await ReturningUserSignInTests.Device(enrolledFor: nil)
        let (auth, transport) = (device.auth, device.transport)
        let prompts = Prompts()
        let step = ReturningUserStep(method: .deviceKey) { _, _ in
            try await prompts.prompt()
            throw LatchkeyError(code: .deviceKeyNotFound, message: "unreachable")
        }
        let answers = try await withThrowingTaskGroup(of: ReturningUserSignIn.self) { group in
            for _ in 0..<20 { group.addTask { try await auth.signInReturningUser(steps: [step]) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.count == 20)
        #expect(await prompts.count == 1)
        #expect(await transport.count("POST", "/otp") == 1)
        // Once it is over, the next call runs a chain of its own.
        _ = try await auth.signInReturningUser(steps: [step])
        #expect(await prompts.count == 2)
    }

    @Test func cancellingTheCallerStopsTheChainBeforeTheCode() async throws {
        let device = try await ReturningUserSignInTests.Device(enrolledFor: nil)
        let (auth, transport) = (device.auth, device.transport)
        let step = ReturningUserStep(method: .deviceKey) { _, _ in
            try? await Task.sleep(for: .milliseconds(300))  // a prompt that does not notice the cancel
            throw LatchkeyError(code: .deviceKeyNotFound, message: "revoked")
        }
        let call = Task { try await auth.signInReturningUser(steps: [step]) }
        try await Task.sleep(for: .milliseconds(50))
        call.cancel()
        await #expect(throws: CancellationError.self) { try await call.value }
        #expect(await transport.count("POST", "/otp") == 0)
    }
}
