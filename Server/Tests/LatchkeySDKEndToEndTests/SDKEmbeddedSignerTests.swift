import Crypto
import Foundation
import Latchkey
import LatchkeyCore
import LatchkeyServer
import LatchkeyStore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `EmbeddedSigner` against a live server: configured on one device, recovered on another.
@Suite struct SDKEmbeddedSignerTests {
    static let password = "correct horse battery staple"
    static let recoveryPassword = "my long recovery sentence"

    func signedUp(_ server: LiveServer, _ email: String) async throws -> AuthClient {
        let auth = server.client()
        _ = try await auth.signUp(email: email, password: Self.password)
        _ = try await auth.verifyEmail(email: email, code: try await server.latestCode(email))
        return auth
    }

    func secondDevice(_ server: LiveServer, _ email: String) async throws -> AuthClient {
        let auth = server.client()
        try await auth.signIn(email: email, password: Self.password)
        return auth
    }

    func signer(_ auth: AuthClient) -> EmbeddedSigner { EmbeddedSigner(auth: auth, kdf: ScryptParameters(logN: 15)) }

    @Test(arguments: ["password", "automatic"])
    func aSecondDeviceRecoversTheSameKey(method: String) async throws {
        try await LiveServer.run { server in
            let email = "signer-\(method)@example.com"
            let recovery: EmbeddedSigner.Recovery = method == "password" ? .password(Self.recoveryPassword) : .automatic
            let auth = try await signedUp(server, email)
            let phone = signer(auth)
            #expect(try await phone.refresh() == .notConfigured)
            let notReady = await #expect(throws: LatchkeyError.self) { try await phone.sign(Data("x".utf8)) }
            #expect(notReady?.isSignerNotConfigured == true)

            // The stream sees the signer become ready, and locked when the user signs out.
            var states = phone.states.makeAsyncIterator()
            let publicKey = try await phone.configure(recovery: recovery)
            let message = Data("transfer 5 to alice".utf8)
            #expect(publicKey.isValidSignature(try await phone.sign(message), for: message))

            var state = await states.next()
            while state != .ready(publicKey: publicKey.rawRepresentation), state != nil { state = await states.next() }
            try await auth.signOut(scope: .local)
            #expect(await states.next() == .locked)
            #expect(await phone.state == .locked)

            let laptop = signer(try await secondDevice(server, email))
            #expect(try await laptop.refresh() == .locked)
            // A second key would orphan the first.
            let second = await #expect(throws: LatchkeyError.self) { try await laptop.configure(recovery: recovery) }
            #expect(second?.code == .conflict)
            if method == "password" {
                let wrong = await #expect(throws: LatchkeyError.self) { try await laptop.recover(.password("not the right sentence")) }
                #expect(wrong?.code == .invalidRecoveryPassword)
                let other = await #expect(throws: LatchkeyError.self) { try await laptop.recover(.automatic) }
                #expect(other?.code == .invalidRecoveryPassword)
            }
            #expect(try await laptop.recover(recovery).rawRepresentation == publicKey.rawRepresentation)
            #expect(try await laptop.refresh() == .ready(publicKey: publicKey.rawRepresentation))
            #expect(publicKey.isValidSignature(try await laptop.sign(message), for: message))

            try await laptop.forgetOnThisDevice()
            #expect(try await laptop.refresh() == .locked)
        }
    }

    @Test(.enabled(if: !LiveServer.usesPostgres, "reads the SQLite file"))
    func theServersDataAloneOpensNoBackup() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("signer-rest-\(UUID().uuidString)").path
        try await LiveServer.run(configure: {
            $0.dataDirectory = directory; $0.databasePath = directory + "/latchkey.sqlite"
        }) {
            server in
            let keyStorage = InMemorySessionStorage()
            let passwordUser = try await signedUp(server, "vaulted@example.com")
            let passwordSigner = EmbeddedSigner(auth: passwordUser, storage: keyStorage, kdf: ScryptParameters(logN: 15))
            try await passwordSigner.configure(recovery: .password(Self.recoveryPassword))
            let automaticUser = try await signedUp(server, "automatic@example.com")
            let automaticSigner = EmbeddedSigner(auth: automaticUser, storage: keyStorage, kdf: ScryptParameters(logN: 15))
            try await automaticSigner.configure(recovery: .automatic)
            let recoveryKey = try #require(
                try JSONSerialization.jsonObject(with: try await Self.recoveryKeyAnswer(server, automaticUser)) as? [String: String])["key"]

            let database = databaseBytes(in: directory)
            for user in [passwordUser, automaticUser] {
                let userID = try #require(await user.currentUser?.id)
                let privateKey = try #require(await keyStorage.load(key: "latchkey.signer.\(userID.uuidString.lowercased())"))
                #expect(database.range(of: privateKey) == nil)
                #expect(try await server.app.store.signerBackup(userID: userID) != nil)
            }
            // The automatic key is stored sealed under the server secret, which is not in the database.
            let raw = try #require(recoveryKey.flatMap { Data(base64Encoded: Self.padded($0)) })
            #expect(database.range(of: raw) == nil)
            #expect(database.range(of: Data(try #require(recoveryKey).utf8)) == nil)
            #expect(database.range(of: Data(Self.recoveryPassword.utf8)) == nil)
        }
    }

    static func recoveryKeyAnswer(_ server: LiveServer, _ auth: AuthClient) async throws -> Data {
        var request = URLRequest(url: server.url.appendingPathComponent("signer/recovery-key"))
        request.httpMethod = "POST"
        request.setValue("Bearer \(try await auth.session().accessToken)", forHTTPHeaderField: "Authorization")
        return try await URLSessionTransport().send(request).0
    }

    static func padded(_ base64URL: String) -> String {
        var text = base64URL.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        return text
    }
}
