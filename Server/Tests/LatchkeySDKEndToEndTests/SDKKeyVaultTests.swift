import Crypto
import Foundation
import Latchkey
import LatchkeyCore
import LatchkeyServer
import LatchkeyStore
import Testing

/// The server-assisted `KeyVault` against a live server.
@Suite struct SDKKeyVaultTests {
    static let password = "correct horse battery staple"

    func signedIn(_ server: LiveServer, _ email: String, storage: InMemorySessionStorage = InMemorySessionStorage()) async throws
        -> AuthClient
    {
        let auth = server.client(storage: storage)
        _ = try await auth.signUp(email: email, password: Self.password)
        _ = try await auth.verifyEmail(email: email, code: try await server.latestCode(email))
        return auth
    }

    func makeVault(_ auth: AuthClient, storage: InMemorySessionStorage) -> KeyVault {
        KeyVault(configuration: .init(mode: .serverAssisted(auth), storage: storage, kdf: ScryptParameters(logN: 10)))
    }

    @Test func tenWrongPINsDestroyTheServerShareAndTheRightPINCannotBringItBack() async throws {
        try await LiveServer.run { server in
            let storage = InMemorySessionStorage()
            let auth = try await signedIn(server, "pin@example.com", storage: storage)
            let vault = makeVault(auth, storage: storage)
            let key = Curve25519.Signing.PrivateKey()
            try await vault.signUp(keyPair: key, pin: "480913")
            await vault.signOut()
            #expect(try await vault.signIn(pin: "480913").rawRepresentation == key.publicKey.rawRepresentation)
            let message = Data("transfer".utf8)
            #expect(key.publicKey.isValidSignature(try await vault.sign(message, pin: "480913"), for: message))

            for remaining in stride(from: 9, through: 1, by: -1) {
                let error = await #expect(throws: LatchkeyError.self) { try await vault.signIn(pin: "000001") }
                #expect(error?.isInvalidPIN == true)
                #expect(error?.attemptsRemaining == remaining)
            }
            let tenth = await #expect(throws: LatchkeyError.self) { try await vault.signIn(pin: "000001") }
            #expect(tenth?.isVaultLocked == true)
            let right = await #expect(throws: LatchkeyError.self) { try await vault.signIn(pin: "480913") }
            #expect(right?.isVaultLocked == true)

            // Recovery: the app re-imports the key (its recovery phrase) under a new PIN.
            try await vault.signUp(keyPair: key, pin: "730182")
            #expect(try await vault.signIn(pin: "730182").rawRepresentation == key.publicKey.rawRepresentation)
        }
    }

    @Test(.enabled(if: !LiveServer.usesPostgres, "reads the SQLite file"))
    func aStolenPhoneFacesTheServersCountAndTheServerAloneHoldsNothingThatOpens() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vault-rest-\(UUID().uuidString)").path
        try await LiveServer.run(configure: {
            $0.dataDirectory = directory; $0.databasePath = directory + "/latchkey.sqlite"
        }) {
            server in
            let storage = InMemorySessionStorage()
            let auth = try await signedIn(server, "stolen@example.com", storage: storage)
            let vault = makeVault(auth, storage: storage)
            let key = Curve25519.Signing.PrivateKey()
            try await vault.signUp(keyPair: key, pin: "480913")
            let blob = try #require(await storage.load(key: "latchkey.vault"))
            #expect(blob.range(of: key.rawRepresentation) == nil)

            // The database: no sealed key, no private key, no PIN, no share in the clear.
            let database = databaseBytes(in: directory)
            let sealed = try #require(try JSONSerialization.jsonObject(with: blob) as? [String: Any])["sealed_key"] as? String
            #expect(database.range(of: Data(try #require(sealed).utf8)) == nil)
            #expect(database.range(of: key.rawRepresentation) == nil)
            #expect(database.range(of: Data("480913".utf8)) == nil)

            // The thief has the phone (the stored vault and the session) but not the PIN: every
            // guess goes to the server and counts.
            let thief = makeVault(auth, storage: storage)
            for _ in 1...9 { _ = try? await thief.signIn(pin: "000001") }
            let owner = await #expect(throws: LatchkeyError.self) { try await vault.signIn(pin: "111112") }
            #expect(owner?.isVaultLocked == true)
        }
    }

    @Test func changingThePINReplacesTheServerVaultAndNeedsASession() async throws {
        try await LiveServer.run { server in
            let storage = InMemorySessionStorage()
            let auth = try await signedIn(server, "change@example.com", storage: storage)
            let vault = makeVault(auth, storage: storage)
            let key = Curve25519.Signing.PrivateKey()
            try await vault.signUp(keyPair: key, pin: "480913")
            let userID = try #require(await auth.currentUser?.id)
            let before = try #require(try await server.app.store.vaults(userID: userID).first)
            try await vault.changePIN(from: "480913", to: "730182")
            let after = try await server.app.store.vaults(userID: userID)
            #expect(after.count == 1 && after.first?.id != before.id)
            #expect(try await vault.signIn(pin: "730182").rawRepresentation == key.publicKey.rawRepresentation)

            try await auth.signOut()
            let signedOut = await #expect(throws: LatchkeyError.self) { try await vault.signIn(pin: "730182") }
            #expect(signedOut?.isSessionMissing == true)
            let noSession = await #expect(throws: LatchkeyError.self) {
                try await vault.signUp(keyPair: Curve25519.Signing.PrivateKey(), pin: "480913")
            }
            #expect(noSession?.isSessionMissing == true)
        }
    }
}
