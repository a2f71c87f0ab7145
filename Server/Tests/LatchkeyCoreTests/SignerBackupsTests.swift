import Foundation
import LatchkeyAPI
import Testing

@testable import LatchkeyCore

/// The embedded-signer use case against the in-memory store, a manual clock and seeded
/// randomness.
@Suite struct SignerBackupsTests {
    struct Fixture {
        let signer: SignerBackups
        let store = InMemoryStore()
        let time = ManualTimeSource()
        let principal: Principal

        init(verifiedFactor: Bool = false, aal: String = "aal1") {
            principal = TestPrincipals.signedIn(aal: aal, now: time.now())
            signer = SignerBackups(
                store: store, serverSecret: Array(repeating: 9, count: 32),
                gate: SecondFactorGate(factors: TestPrincipals.Factors(verified: verifiedFactor)), time: time,
                random: SeededRandomSource(seed: 7))
        }
    }

    static func backup(key byte: UInt8 = 1, recovery: String = "automatic", kdf: SignerKDF? = nil) -> SignerBackup {
        SignerBackup(
            publicKey: Base64URL.encode([UInt8](repeating: byte, count: 32)), recovery: recovery,
            ciphertext: Base64URL.encode([UInt8](repeating: 3, count: 60)), kdf: kdf)
    }

    @Test func aBackupIsReplacedOnlyForTheSameKey() async throws {
        let f = Fixture()
        let first = try await f.signer.put(Self.backup(), principal: f.principal)
        f.time.advance(by: 60)
        let again = try await f.signer.put(Self.backup(), principal: f.principal)
        #expect(again.createdAt == first.createdAt && again.updatedAt != first.updatedAt)
        await #expect(throws: AuthError(.conflict, "The user already has a signer with another key: delete its backup first")) {
            try await f.signer.put(Self.backup(key: 2), principal: f.principal)
        }
        #expect(try await f.signer.get(principal: f.principal).publicKey == first.publicKey)
        try await f.signer.delete(principal: f.principal)
        await #expect(throws: SignerBackups.noBackup) { try await f.signer.get(principal: f.principal) }
        await #expect(throws: SignerBackups.noBackup) { try await f.signer.delete(principal: f.principal) }
        _ = try await f.signer.put(Self.backup(key: 2), principal: f.principal)
    }

    @Test func backupsAreCheckedAsTheAPIDocumentSays() async throws {
        let f = Fixture()
        let salt = Base64URL.encode([UInt8](repeating: 5, count: 16))
        let refusals: [(SignerBackup, String)] = [
            (SignerBackup(publicKey: "short", recovery: "automatic", ciphertext: nil, kdf: nil), "public_key"),
            (SignerBackup(publicKey: Self.backup().publicKey, recovery: "automatic", ciphertext: "AAAA", kdf: nil), "ciphertext"),
            (Self.backup(recovery: "password"), "a password backup needs its kdf"),
            (Self.backup(kdf: SignerKDF(salt: salt, logN: 15, r: 8, p: 1)), "an automatic backup has no kdf"),
            (Self.backup(recovery: "password", kdf: SignerKDF(salt: salt, logN: 14, r: 8, p: 1)), "kdf must be scrypt"),
            (Self.backup(recovery: "email"), "recovery must be password or automatic"),
        ]
        for (request, message) in refusals {
            do {
                _ = try await f.signer.put(request, principal: f.principal)
                Issue.record("accepted: \(message)")
            } catch let error as AuthError {
                #expect(error.code == .validationFailed && error.message.hasPrefix(message), "\(error.message)")
            }
        }
        #expect(try await f.store.signerBackup(userID: f.principal.user.id) == nil)
        _ = try await f.signer.put(
            Self.backup(recovery: "password", kdf: SignerKDF(salt: salt, logN: 15, r: 8, p: 1)), principal: f.principal)
    }

    /// The recovery key is made once and the same on every later call.
    @Test func theRecoveryKeyIsMadeOnceAndKeptSealed() async throws {
        let f = Fixture()
        let key = try await f.signer.recoveryKey(principal: f.principal).key
        #expect(Base64URL.decode(key)?.count == 32)
        #expect(try await f.signer.recoveryKey(principal: f.principal).key == key)
        let sealed = try await f.store.signerRecoveryKey(userID: f.principal.user.id, creating: "other", at: f.time.now())
        #expect(sealed != key && sealed != "other")
    }

    @Test func aVerifiedFactorNeedsAnAAL2Session() async throws {
        let guarded = Fixture(verifiedFactor: true)
        await #expect(throws: AuthError.self) { try await guarded.signer.recoveryKey(principal: guarded.principal) }
        await #expect(throws: AuthError.self) { try await guarded.signer.put(Self.backup(), principal: guarded.principal) }
        let raised = Fixture(verifiedFactor: true, aal: "aal2")
        _ = try await raised.signer.recoveryKey(principal: raised.principal)
    }
}
