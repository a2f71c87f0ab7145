import Foundation
import LatchkeyCore
import LatchkeyStore
import Testing

/// The contract of ``CustomProviderStore`` over the in-memory store, SQLite and PostgreSQL.
@Suite struct CustomProviderStoreContractTests {
    static func eachStore(_ body: (any CustomProviderStore) async throws -> Void) async throws {
        try await StoreContractTests.eachStore(memory: InMemoryStore() as any CustomProviderStore, body)
    }

    static func record(_ identifier: String, at date: Date = Date(timeIntervalSince1970: 1_800_000_000)) -> CustomProviderRecord {
        CustomProviderRecord(
            id: UUID(), identifier: identifier, name: "Acme", clientID: "web", sealedSecret: "sealed", acceptableClientIDs: ["ios", "x"],
            scopes: ["openid", "email"], pkceEnabled: true, enabled: true, emailOptional: false, skipNonceCheck: true,
            issuer: "https://sso.acme.example", createdAt: date, updatedAt: date)
    }

    @Test func providersAreStoredUniqueChangedAndDeleted() async throws {
        try await Self.eachStore { store in
            let identifier = "custom:acme-\(UUID().uuidString.prefix(6).lowercased())"
            let provider = Self.record(identifier)
            try await store.insertCustomProvider(provider)
            #expect(try await store.customProvider(identifier: identifier) == provider)
            #expect(try await store.customProviders().contains(provider))
            await #expect { try await store.insertCustomProvider(Self.record(identifier)) } throws: {
                ($0 as? StoreError)?.isDuplicate == true
            }
            var changed = provider
            changed.enabled = false
            changed.acceptableClientIDs = []
            changed.updatedAt = provider.updatedAt.addingTimeInterval(5)
            #expect(try await store.updateCustomProvider(changed))
            #expect(try await store.customProvider(identifier: identifier) == changed)
            #expect(try await !store.updateCustomProvider(Self.record("custom:nobody-\(UUID().uuidString.prefix(6))")))
            #expect(try await store.deleteCustomProvider(identifier: identifier))
            #expect(try await !store.deleteCustomProvider(identifier: identifier))
            #expect(try await store.customProvider(identifier: identifier) == nil)
        }
    }
}
