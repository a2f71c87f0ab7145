import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyCore
import LatchkeyServer
import Testing

@Suite struct SignerBackupTests {
    static let publicKey = Base64URL.encode(Data(repeating: 1, count: 32))
    static let ciphertext = Base64URL.encode(Data(repeating: 2, count: 60))
    static let salt = Base64URL.encode(Data(repeating: 3, count: 16))

    static func passwordBackup(publicKey: String = publicKey) -> String {
        #"{"public_key":"\#(publicKey)","recovery":"password","ciphertext":"\#(ciphertext)","kdf":{"salt":"\#(salt)","log_n":17,"r":8,"p":1}}"#
    }

    @Test func aBackupIsStoredFetchedReplacedForTheSameKeyAndNeverForAnother() async throws {
        try await TestServer().run { client, app async throws in
            let session = try await client.signUpConfirmed("signer@example.com", app: app)
            #expect(try await client.send(.get, "/signer/backup", bearer: session.accessToken).status == .notFound)
            let stored = try await client.send(.put, "/signer/backup", json: Self.passwordBackup(), bearer: session.accessToken)
            #expect(stored.status == .ok)
            let fetched = try await client.send(.get, "/signer/backup", bearer: session.accessToken).decode(SignerBackup.self)
            #expect(fetched.publicKey == Self.publicKey && fetched.recovery == "password" && fetched.kdf?.logN == 17)

            // The same key under another recovery method replaces it.
            let automatic = #"{"public_key":"\#(Self.publicKey)","recovery":"automatic","ciphertext":"\#(Self.ciphertext)"}"#
            #expect(try await client.send(.put, "/signer/backup", json: automatic, bearer: session.accessToken).status == .ok)
            let replaced = try await client.send(.get, "/signer/backup", bearer: session.accessToken).decode(SignerBackup.self)
            #expect(replaced.recovery == "automatic" && replaced.kdf == nil && replaced.createdAt == fetched.createdAt)

            // Another key would orphan the first: refused until the backup is deleted.
            let other = Self.passwordBackup(publicKey: Base64URL.encode(Data(repeating: 9, count: 32)))
            let conflict = try await client.send(.put, "/signer/backup", json: other, bearer: session.accessToken)
            #expect(conflict.status == .conflict)
            #expect(
                try await client.send(.get, "/signer/backup", bearer: session.accessToken).decode(SignerBackup.self).recovery == "automatic"
            )
            #expect(try await client.send(.delete, "/signer/backup", bearer: session.accessToken).status == .noContent)
            #expect(try await client.send(.put, "/signer/backup", json: other, bearer: session.accessToken).status == .ok)
        }
    }

    @Test func theRecoveryKeyIsOnePerUserAndOnlyForTheirSession() async throws {
        try await TestServer().run { client, app async throws in
            let ada = try await client.signUpConfirmed("ada-signer@example.com", app: app)
            let bob = try await client.signUpConfirmed("bob-signer@example.com", app: app)
            let first = try await client.send(.post, "/signer/recovery-key", bearer: ada.accessToken)
            #expect(first.headers[.cacheControl] == "no-store")
            let key = try first.decode(SignerRecoveryKey.self).key
            #expect(Base64URL.decode(key)?.count == 32)
            #expect(try await client.send(.post, "/signer/recovery-key", bearer: ada.accessToken).decode(SignerRecoveryKey.self).key == key)
            #expect(try await client.send(.post, "/signer/recovery-key", bearer: bob.accessToken).decode(SignerRecoveryKey.self).key != key)
            #expect(try await client.send(.post, "/signer/recovery-key").status == .unauthorized)
        }
    }

    @Test func badBackupsAreClearErrors() async throws {
        try await TestServer().run { client, app async throws in
            let session = try await client.signUpConfirmed("bad-signer@example.com", app: app)
            let key = Self.publicKey
            let box = Self.ciphertext
            let bad = [
                "{}",
                #"{"public_key":"short","recovery":"automatic","ciphertext":"\#(box)"}"#,
                #"{"public_key":"\#(key)","recovery":"automatic","ciphertext":"short"}"#,
                #"{"public_key":"\#(key)","recovery":"passkey","ciphertext":"\#(box)"}"#,
                #"{"public_key":"\#(key)","recovery":"password","ciphertext":"\#(box)"}"#,
                #"{"public_key":"\#(key)","recovery":"password","ciphertext":"\#(box)","kdf":{"salt":"\#(Self.salt)","log_n":4,"r":8,"p":1}}"#,
                #"{"public_key":"\#(key)","recovery":"password","ciphertext":"\#(box)","kdf":{"salt":"c2FsdA","log_n":17,"r":8,"p":1}}"#,
                #"{"public_key":"\#(key)","recovery":"automatic","ciphertext":"\#(box)","kdf":{"salt":"\#(Self.salt)","log_n":17,"r":8,"p":1}}"#,
                #"{"public_key":"\#(key)","recovery":"password","ciphertext":"\#(box)","kdf":{"salt":"\#(Self.salt)"}}"#,
                "[]",
            ]
            for body in bad {
                let response = try await client.send(.put, "/signer/backup", json: body, bearer: session.accessToken)
                #expect(response.status == .badRequest, "\(body): \(response.text)")
            }
            #expect(try await client.send(.put, "/signer/backup", json: Self.passwordBackup()).status == .unauthorized)
            #expect(try await client.send(.delete, "/signer/backup", bearer: session.accessToken).status == .notFound)
            #expect(try await client.send(.get, "/signer/backup", bearer: session.accessToken).status == .notFound)
        }
    }
}
