import Crypto
import Foundation
import Latchkey
import Testing

/// A clock the tests move by hand. (An `NSLock` held by hand, not `Mutex` or `NSLock.withLock`:
/// they need macOS 15 / iOS 18 and macOS 14 / iOS 17, above the package's floors, and the tests
/// build for those too.)
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current = Date(timeIntervalSince1970: 1_800_000_000)
    var now: Date {
        lock.lock()
        defer { lock.unlock() }
        return current
    }
    func advance(_ seconds: TimeInterval) {
        lock.lock()
        current = current.addingTimeInterval(seconds)
        lock.unlock()
    }
}

@Suite struct KeyVaultTests {
    static func localVault(storage: InMemorySessionStorage = InMemorySessionStorage(), clock: TestClock = TestClock()) -> KeyVault {
        KeyVault(
            configuration: .init(mode: .localOnly, storage: storage, kdf: ScryptParameters(logN: 10), now: { clock.now }))
    }

    @Test(arguments: [
        "123456", "654321", "111111", "000000", "121212", "123123", "112233", "123321", "159753", "890123", "12345", "12a456",
        "1234567890123", "１２３４５６", "",
    ])
    func trivialShortLongAndNonDigitPINsAreRefused(pin: String) async throws {
        let vault = Self.localVault()
        let error = await #expect(throws: LatchkeyError.self) {
            try await vault.signUp(keyPair: Curve25519.Signing.PrivateKey(), pin: pin)
        }
        #expect(error?.isWeakPIN == true)
        #expect(try await vault.isSignedUp == false)
    }

    @Test(arguments: ["480913", "730182", "29471036"])
    func ordinaryPINsAreAccepted(pin: String) throws {
        try PINPolicy().check(pin)
    }

    @Test func theSeedsCallsWorkLocally() async throws {
        let storage = InMemorySessionStorage()
        let vault = Self.localVault(storage: storage)
        let key = Curve25519.Signing.PrivateKey()
        #expect(try await vault.isSignedUp == false)
        let missing = await #expect(throws: LatchkeyError.self) { try await vault.signIn(pin: "480913") }
        #expect(missing?.isVaultNotFound == true)

        #expect(try await vault.signUp(keyPair: key, pin: "480913").rawRepresentation == key.publicKey.rawRepresentation)
        #expect(await vault.isSignedIn)
        await vault.signOut()
        #expect(await vault.isSignedIn == false)
        #expect(try await vault.signIn(pin: "480913").rawRepresentation == key.publicKey.rawRepresentation)
        #expect(try await vault.userKeyPair(pin: "480913").rawRepresentation == key.rawRepresentation)
        let message = Data("pay 10 XLM to GABC".utf8)
        let signature = try await vault.sign(message, pin: "480913")
        #expect(key.publicKey.isValidSignature(signature, for: message))

        // The stored vault holds neither the key nor the PIN.
        let stored = try #require(await storage.load(key: "latchkey.vault"))
        #expect(stored.range(of: key.rawRepresentation) == nil)
        #expect(stored.range(of: Data("480913".utf8)) == nil)

        try await vault.changePIN(from: "480913", to: "730182")
        await #expect(throws: LatchkeyError.self) { try await vault.signIn(pin: "480913") }
        #expect(try await vault.signIn(pin: "730182").rawRepresentation == key.publicKey.rawRepresentation)
        try await vault.reset()
        #expect(try await vault.isSignedUp == false)
    }

    @Test func wrongPINsLocallyMeanGrowingDelays() async throws {
        let clock = TestClock()
        let vault = Self.localVault(clock: clock)
        let key = Curve25519.Signing.PrivateKey()
        try await vault.signUp(keyPair: key, pin: "480913")
        for attempt in 1...4 {
            let error = await #expect(throws: LatchkeyError.self) { try await vault.signIn(pin: "000001") }
            #expect(error?.isInvalidPIN == true, "attempt \(attempt)")
            #expect(error?.retryAfter == nil)
        }
        let fifth = await #expect(throws: LatchkeyError.self) { try await vault.signIn(pin: "000001") }
        #expect(fifth?.retryAfter == 30)
        // Even the right PIN waits.
        let waiting = await #expect(throws: LatchkeyError.self) { try await vault.signIn(pin: "480913") }
        #expect(waiting?.code == .pinDelayed && waiting?.retryAfter == 30)
        clock.advance(31)
        let sixth = await #expect(throws: LatchkeyError.self) { try await vault.signIn(pin: "000001") }
        #expect(sixth?.retryAfter == 60)
        clock.advance(61)
        #expect(try await vault.signIn(pin: "480913").rawRepresentation == key.publicKey.rawRepresentation)
        // The right PIN reset the count.
        let again = await #expect(throws: LatchkeyError.self) { try await vault.signIn(pin: "000001") }
        #expect(again?.retryAfter == nil)
    }

    @Test func aDamagedOrTamperedVaultIsReportedNotCrashedOn() async throws {
        let storage = InMemorySessionStorage()
        let vault = Self.localVault(storage: storage)
        await storage.save(Data("{not json".utf8), key: "latchkey.vault")
        let damaged = await #expect(throws: LatchkeyError.self) { try await vault.signIn(pin: "480913") }
        #expect(damaged?.code == .vaultCorrupted)

        try await vault.signUp(keyPair: Curve25519.Signing.PrivateKey(), pin: "480913")
        let stored = try #require(await storage.load(key: "latchkey.vault"))
        var object = try #require(try JSONSerialization.jsonObject(with: stored) as? [String: Any])
        object["kdf"] = ["logN": 40, "r": 8, "p": 1]
        await storage.save(try JSONSerialization.data(withJSONObject: object), key: "latchkey.vault")
        let tampered = await #expect(throws: LatchkeyError.self) { try await vault.signIn(pin: "480913") }
        #expect(tampered?.code == .vaultCorrupted)
    }
}
