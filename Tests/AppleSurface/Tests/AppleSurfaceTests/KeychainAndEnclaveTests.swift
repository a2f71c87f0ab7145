import CryptoKit
import Foundation
import LocalAuthentication
import Security
import Testing

@testable import Latchkey

/// The SDK's keychain and Secure Enclave code (issue #36, defect 9), compiled against the
/// Security, LocalAuthentication and CryptoKit stand-ins and run against their in-memory keychain
/// and enclave: sessions readable after the first unlock, secrets on this device only, keys
/// behind the user's presence as the caller chooses, and a failure to open a key that is not a
/// lost key keeps the enrollment.
@Suite(.serialized) struct KeychainAndEnclaveTests {
    init() {
        Keychain.shared.reset()
        EnclaveStandIn.shared.reset()
        LAStandIn.answer = nil
    }

    func item(_ account: String) throws -> Keychain.Item {
        try #require(Keychain.shared.items.first { $0.account == account })
    }

    @Test func sessionsAndSecretsAreKeptAsTheirKindNeeds() async throws {
        let storage = KeychainSessionStorage(service: "app.example")
        try await storage.save(Data("session".utf8), key: "session")
        try await storage.saveSecret(Data("vault".utf8), key: "vault", protection: .thisDevice)
        try await storage.saveSecret(Data("key".utf8), key: "guarded", protection: .biometryCurrentSet)
        #expect(try item("session").accessible == kSecAttrAccessibleAfterFirstUnlock as String)
        #expect(try item("vault").accessible == kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly as String)
        let guarded = try item("guarded")
        #expect(guarded.accessible == nil)
        #expect(guarded.accessControl?.protection == kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly as String)
        #expect(guarded.accessControl?.flags == .biometryCurrentSet)

        // Saved again, still one item of each, protected as asked, even from one protection to another.
        try await storage.saveSecret(Data("key 2".utf8), key: "guarded", protection: .userPresence)
        #expect(Keychain.shared.items.filter { $0.account == "guarded" }.map { $0.accessControl?.flags } == [.userPresence])
        try await storage.saveSecret(Data("v2".utf8), key: "vault", protection: .thisDevice)
        #expect(Keychain.shared.items.filter { $0.account == "vault" }.map(\.data) == [Data("v2".utf8)])

        #expect(try await storage.load(key: "session") == Data("session".utf8))
        #expect(try await storage.loadSecret(key: "vault", reason: "") == Data("v2".utf8))
        #expect(try await storage.loadSecret(key: "guarded", reason: "Sign in to Example") == Data("key 2".utf8))
        #expect(Keychain.shared.promptReasons == ["Sign in to Example"])
        #expect(try await storage.loadSecret(key: "absent", reason: "") == nil)

        // The user cancels the prompt; a locked device is "not now", never "signed out".
        Keychain.shared.whenAsked { _ in errSecUserCanceled }
        await #expect { try await storage.loadSecret(key: "guarded", reason: "r") } throws: {
            ($0 as? LatchkeyError)?.code == .userCancelled
        }
        Keychain.shared.failEveryCall(with: errSecInteractionNotAllowed)
        await #expect { try await storage.load(key: "session") } throws: { ($0 as? LatchkeyError)?.code == .storageUnavailable }
        await #expect { try await storage.saveSecret(Data(), key: "vault", protection: .thisDevice) } throws: {
            ($0 as? LatchkeyError)?.code == .storageUnavailable
        }
    }

    /// A secret an earlier SDK stored like a session (backed up, restored to other devices) is
    /// moved to this device only when it is first read.
    @Test func anEarlierSDKsSecretMovesToThisDeviceOnlyWhenRead() async throws {
        let storage = KeychainSessionStorage(service: "app.example")
        Keychain.shared.store(
            account: "latchkey.signer.x", service: "app.example", data: Data("old".utf8), accessible: kSecAttrAccessibleAfterFirstUnlock)
        #expect(try await storage.loadSecret(key: "latchkey.signer.x", reason: "") == Data("old".utf8))
        #expect(try item("latchkey.signer.x").accessible == kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly as String)
    }

    @Test func secureEnclaveKeysSignBehindBiometricsAndKeepTheirEnrollmentThroughFailures() async throws {
        let store = SecureEnclaveDeviceKeyStore(prompt: .reuseUnlock(seconds: 900), service: "app.example.device-keys")
        let publicKey = try await store.createKey(tag: "device")
        let handle = try item("device")
        #expect(handle.accessible == kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly as String)
        let control = try #require(EnclaveStandIn.shared.accessControl(of: handle.data))
        #expect(control.flags == [.privateKeyUsage, .biometryCurrentSet])
        #expect(control.protection == kSecAttrAccessibleWhenUnlockedThisDeviceOnly as String)

        let message = Data("challenge".utf8)
        let raw = try #require(try await store.sign(message, tag: "device", reason: "Sign in to Example"))
        #expect(publicKey.isValidSignature(try P256.Signing.ECDSASignature(rawRepresentation: raw), for: message))
        #expect(EnclaveStandIn.shared.promptReasons == ["Sign in to Example"])

        // The user cancels: user_cancelled, and the key stays.
        EnclaveStandIn.shared.signingError = LAError(.userCancel)
        await #expect { try await store.sign(message, tag: "device", reason: "r") } throws: {
            ($0 as? LatchkeyError)?.code == .userCancelled
        }
        // New biometrics: a `.currentSet` key is lost (nil: enrol again).
        EnclaveStandIn.shared.signingError = LAError(.invalidContext)
        #expect(try await store.sign(message, tag: "device", reason: "r") == nil)
        EnclaveStandIn.shared.signingError = nil

        // The enclave cannot open the handle now for a reason that is not a foreign handle: the
        // error is reported and the enrollment kept (it used to be read as a lost key).
        EnclaveStandIn.shared.openError = NSError(domain: "com.apple.security", code: -1)
        await #expect { try await store.sign(message, tag: "device", reason: "r") } throws: {
            ($0 as? LatchkeyError)?.code == .deviceKeyUnavailable
        }
        EnclaveStandIn.shared.openError = nil
        #expect(try await store.sign(message, tag: "device", reason: "r") != nil)

        // Another enclave's handle (a phone restored from this one's backup by an earlier SDK): lost.
        EnclaveStandIn.shared.reset()
        #expect(try await store.sign(message, tag: "device", reason: "r") == nil)
    }

    @Test func softwareDeviceKeysAreSecretsBehindThePresenceAsked() async throws {
        let store = SoftwareDeviceKeyStore(storage: KeychainSessionStorage(service: "app.example"), protection: .userPresence)
        let publicKey = try await store.createKey(tag: "software")
        #expect(try item("software").accessControl?.flags == .userPresence)
        let raw = try #require(try await store.sign(Data("m".utf8), tag: "software", reason: "Sign in"))
        #expect(publicKey.isValidSignature(try P256.Signing.ECDSASignature(rawRepresentation: raw), for: Data("m".utf8)))
        #expect(Keychain.shared.promptReasons == ["Sign in"])
    }
}
