import Foundation
import LatchkeyCore
import LatchkeyStore
import Testing

/// The contract of ``OAuthClientStore`` on memory, SQLite and PostgreSQL (when
/// `LATCHKEY_TEST_DATABASE_URL` names a server): a client reads back whole, lists newest first,
/// changes only on its precondition, and once deleted is read by nothing.
@Suite struct OAuthClientStoreContractTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func client(at date: Date = now, secret: String? = "hash", name: String? = "Example") -> OAuthClientRecord {
        OAuthClientRecord(
            id: UUID(), secretHash: secret, registrationType: "manual", clientType: secret == nil ? "public" : "confidential",
            tokenEndpointAuthMethod: secret == nil ? "none" : "client_secret_basic",
            redirectURIs: ["https://app.example.com/cb", "myapp://cb"], grantTypes: ["authorization_code", "refresh_token"], name: name,
            uri: "https://app.example.com", logoURI: nil, createdAt: date, updatedAt: date)
    }

    @Test func aClientReadsBackWholeChangesOnItsPreconditionAndStaysDeleted() async throws {
        try await StoreContractTests.eachStore(memory: InMemoryStore() as any OAuthClientStore) { store in
            let older = Self.client(at: Self.now.addingTimeInterval(-60))
            let newer = Self.client(secret: nil, name: nil)
            try await store.insertOAuthClient(older, audit: [])
            try await store.insertOAuthClient(newer, audit: [])
            await #expect(throws: StoreError.self) { try await store.insertOAuthClient(older, audit: []) }
            #expect(try await store.oauthClient(id: older.id) == older)
            #expect(try await store.oauthClient(id: newer.id) == newer)
            let listed = try await store.oauthClients().filter { [older.id, newer.id].contains($0.id) }
            #expect(listed.map(\.id) == [newer.id, older.id])

            var changed = older
            changed.redirectURIs = ["https://b.example/cb"]
            changed.secretHash = "other"
            changed.updatedAt = Self.now.addingTimeInterval(1)
            #expect(try await store.updateOAuthClient(changed, ifUpdatedAt: older.updatedAt, audit: []))
            #expect(try await store.oauthClient(id: older.id) == changed)
            // A second write decided on the first read changes nothing.
            var stale = older
            stale.name = "stale"
            #expect(try await store.updateOAuthClient(stale, ifUpdatedAt: older.updatedAt, audit: []) == false)
            #expect(try await store.oauthClient(id: older.id)?.name == "Example")

            #expect(try await store.deleteOAuthClient(id: older.id, at: Self.now, audit: []))
            #expect(try await store.deleteOAuthClient(id: older.id, at: Self.now, audit: []) == false)
            #expect(try await store.oauthClient(id: older.id) == nil)
            #expect(!(try await store.oauthClients().contains { $0.id == older.id }))
            changed.updatedAt = Self.now.addingTimeInterval(2)
            #expect(try await store.updateOAuthClient(changed, ifUpdatedAt: Self.now.addingTimeInterval(1), audit: []) == false)
            #expect(try await store.deleteOAuthClient(id: UUID(), at: Self.now, audit: []) == false)
        }
    }
}
