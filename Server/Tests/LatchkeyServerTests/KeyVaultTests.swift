import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyCore
import LatchkeyServer
import Testing

@Suite struct KeyVaultTests {
    static func verifier(_ seed: UInt8) -> String { Base64URL.encode(Data(repeating: seed, count: 32)) }

    @Test func theShareIsReleasedForTheRightPINAndDestroyedByTheTenthWrongOneInARow() async throws {
        try await TestServer().run { client, app async throws in
            let session = try await client.signUpConfirmed("vault@example.com", app: app)
            let created = try await client.send(
                .post, "/vaults", json: #"{"verifier":"\#(Self.verifier(1))"}"#, bearer: session.accessToken)
            #expect(created.status == .created)
            #expect(created.headers[.cacheControl] == "no-store")
            let vault = try created.decode(KeyVault.self)
            let share = try #require(vault.share)
            #expect(Base64URL.decode(share)?.count == 32)
            #expect(vault.maxAttempts == 10 && !vault.locked)

            func unlock(_ seed: UInt8) async throws -> TestResponse {
                try await client.send(
                    .post, "/vaults/\(vault.id)/unlock", json: #"{"verifier":"\#(Self.verifier(seed))"}"#, bearer: session.accessToken)
            }
            #expect(try await unlock(1).decode(KeyVault.self).share == share)
            // Nine wrong, then the right one resets the count.
            for expected in stride(from: 9, through: 1, by: -1) {
                let wrong = try await unlock(2)
                #expect(wrong.status == .unprocessableContent)
                #expect(wrong.errorCode == "invalid_pin")
                #expect(try wrong.decode(APIErrorBody.self).attemptsRemaining == expected)
            }
            #expect(try await unlock(1).decode(KeyVault.self).failedAttempts == 0)
            for _ in 1...9 { #expect(try await unlock(3).errorCode == "invalid_pin") }
            let tenth = try await unlock(3)
            #expect(tenth.status.code == 423 && tenth.errorCode == "vault_locked")
            // The right PIN cannot bring it back.
            #expect(try await unlock(1).errorCode == "vault_locked")
            let listed = try await client.send(.get, "/vaults", bearer: session.accessToken).decode(KeyVaultList.self)
            #expect(listed.vaults.map(\.locked) == [true])
            #expect(listed.vaults.first?.share == nil)
        }
    }

    @Test func concurrentGuessesAreEachCounted() async throws {
        try await TestServer().run { client, app async throws in
            let session = try await client.signUpConfirmed("burst@example.com", app: app)
            let vault = try await client.send(
                .post, "/vaults", json: #"{"verifier":"\#(Self.verifier(1))"}"#, bearer: session.accessToken
            ).decode(KeyVault.self)
            let codes = try await client.concurrently(25, .post, "/vaults/\(vault.id)/unlock", bearer: session.accessToken) {
                #"{"verifier":"\#(Self.verifier(UInt8(100 + $0)))"}"#
            }.map(\.errorCode)
            #expect(codes.filter { $0 == "invalid_pin" }.count == 9)
            #expect(codes.filter { $0 == "vault_locked" }.count == 16)
        }
    }

    @Test(.enabled(if: !TestServer.usesPostgres, "reads the SQLite file"))
    func theDatabaseHoldsNeitherTheShareNorTheVerifier() async throws {
        let server = TestServer()
        let (share, verifier) = try await server.run { client, app async throws in
            let session = try await client.signUpConfirmed("rest@example.com", app: app)
            let verifier = Self.verifier(7)
            let vault = try await client.send(.post, "/vaults", json: #"{"verifier":"\#(verifier)"}"#, bearer: session.accessToken)
                .decode(KeyVault.self)
            return (try #require(vault.share), verifier)
        }
        var database = Data()
        for file in ["latchkey.sqlite", "latchkey.sqlite-wal"] {
            database += (try? Data(contentsOf: URL(fileURLWithPath: server.directory + "/" + file))) ?? Data()
        }
        let shareBytes = try #require(Base64URL.decode(share))
        #expect(database.range(of: Data(share.utf8)) == nil)
        #expect(database.range(of: Data(shareBytes)) == nil)
        #expect(database.range(of: Data(verifier.utf8)) == nil)
        #expect(database.range(of: Data(repeating: 7, count: 32)) == nil)
    }

    @Test func badInputAndOtherUsersVaults() async throws {
        try await TestServer().run { client, app async throws in
            let session = try await client.signUpConfirmed("owner@example.com", app: app)
            let other = try await client.signUpConfirmed("other@example.com", app: app)
            for body in [
                "{}", #"{"verifier":"short"}"#, #"{"verifier":"\#(String(repeating: "!", count: 43))"}"#, #"{"verifier":5}"#, "[]",
            ] {
                let response = try await client.send(.post, "/vaults", json: body, bearer: session.accessToken)
                #expect(response.status == .badRequest, "\(body)")
            }
            #expect(try await client.send(.post, "/vaults", json: #"{"verifier":"\#(Self.verifier(1))"}"#).status == .unauthorized)
            let vault = try await client.send(
                .post, "/vaults", json: #"{"verifier":"\#(Self.verifier(1))"}"#, bearer: session.accessToken
            ).decode(KeyVault.self)
            // A malformed verifier is refused before it is counted.
            let malformed = try await client.send(
                .post, "/vaults/\(vault.id)/unlock", json: #"{"verifier":"x"}"#, bearer: session.accessToken)
            #expect(malformed.errorCode == "validation_failed")
            let stranger = try await client.send(
                .post, "/vaults/\(vault.id)/unlock", json: #"{"verifier":"\#(Self.verifier(1))"}"#, bearer: other.accessToken)
            #expect(stranger.status == .notFound)
            #expect(try await client.send(.delete, "/vaults/\(vault.id)", bearer: other.accessToken).status == .notFound)
            #expect(try await client.send(.delete, "/vaults/nope", bearer: session.accessToken).status == .notFound)
            let unlocked = try await client.send(
                .post, "/vaults/\(vault.id)/unlock", json: #"{"verifier":"\#(Self.verifier(1))"}"#, bearer: session.accessToken)
            #expect(try unlocked.decode(KeyVault.self).failedAttempts == 0)
            #expect(try await client.send(.delete, "/vaults/\(vault.id)", bearer: session.accessToken).status == .noContent)
            #expect(try await client.send(.get, "/vaults", bearer: session.accessToken).decode(KeyVaultList.self).vaults.isEmpty)
        }
    }
}
