import Foundation
import LatchkeyCore
import LatchkeyStore
import Testing

/// The contract of ``ProviderGrantStore`` (Sign in with Apple's refresh tokens, kept to be
/// revoked with the account), held against the in-memory store, SQLite and PostgreSQL.
@Suite struct ProviderGrantStoreContractTests {
    typealias Store = ProviderGrantStore & AdminUserStore

    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func grant(_ userID: UUID, subject: String = "001.a", token: String = "sealed-1") -> ProviderGrantRecord {
        ProviderGrantRecord(
            userID: userID, provider: "apple", subject: subject, clientID: "com.example.app", sealedRefreshToken: token, createdAt: now)
    }

    @Test func aGrantIsKeptOncePerIdentityGoesWithItsUserAndNeedsOne() async throws {
        try await StoreContractTests.eachStore(memory: InMemoryStore() as any Store) { store in
            let (user, identity) = StoreContractTests.user("grants-\(UUID().uuidString.prefix(8))@example.com", now: Self.now)
            if let memory = store as? InMemoryStore {
                memory.add(user)
            } else {
                try await (store as! any AuthStore).createUser(user, identity: identity, token: nil, outbox: [])
            }
            try await store.saveProviderGrant(Self.grant(user.id))
            try await store.saveProviderGrant(Self.grant(user.id, token: "sealed-2"))
            try await store.saveProviderGrant(Self.grant(user.id, subject: "001.b"))
            #expect(
                try await store.providerGrants(userID: user.id).map { [$0.subject, $0.sealedRefreshToken] } == [
                    ["001.a", "sealed-2"], ["001.b", "sealed-1"],
                ])
            #expect(try await store.providerGrants(userID: user.id).first == Self.grant(user.id, token: "sealed-2"))
            // A user that is gone keeps nothing, and its grants went with it.
            await #expect { try await store.saveProviderGrant(Self.grant(UUID())) } throws: { ($0 as? StoreError)?.isNotFound == true }
            #expect(try await store.deleteUser(id: user.id, audit: []))
            #expect(try await store.providerGrants(userID: user.id).isEmpty)
        }
    }
}
