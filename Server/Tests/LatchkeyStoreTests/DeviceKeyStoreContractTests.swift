import Foundation
import LatchkeyAPI
import LatchkeyCore
import LatchkeyStore
import Testing

/// The contract of ``DeviceKeyStore``, held against the in-memory store, SQLite and PostgreSQL
/// (when `LATCHKEY_TEST_DATABASE_URL` names a server).
@Suite struct DeviceKeyStoreContractTests {
    static func eachStore(_ body: (any DeviceKeyStore) async throws -> Void) async throws {
        try await StoreContractTests.eachStore(memory: InMemoryStore() as any DeviceKeyStore, body)
    }

    static func key(_ userID: UUID, at date: Date) -> DeviceKeyRecord {
        DeviceKeyRecord(
            id: UUID(), userID: userID, name: "phone", publicKey: ["kty": "EC", "crv": "P-256", "x": "x", "y": "y"], createdAt: date,
            sessionID: nil)
    }

    @Test func keysAreCappedOrderedAndTheirOwnersAlone() async throws {
        try await Self.eachStore { store in
            let ada = try await StoreContractTests.owner(in: store)
            let bob = try await StoreContractTests.owner(in: store)
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            let made = (0..<3).map { Self.key(ada, at: start.addingTimeInterval(Double($0))) }
            for key in made.reversed() { #expect(try await store.createDeviceKey(key, limit: 3, audit: [])) }
            #expect(try await !store.createDeviceKey(Self.key(ada, at: start), limit: 3, audit: []))
            #expect(try await store.deviceKeys(userID: ada).map(\.id) == made.map(\.id))
            #expect(try await store.deviceKeys(userID: bob).isEmpty)
            #expect(try await !store.deleteDeviceKey(id: made[0].id, userID: bob, audit: []))
            #expect(try await store.deleteDeviceKey(id: made[0].id, userID: ada, audit: []))
            #expect(try await !store.deleteDeviceKey(id: made[0].id, userID: ada, audit: []))
            #expect(try await store.deviceKeys(userID: ada).count == 2)
        }
    }

    /// Concurrent registrations cannot pass the cap together.
    @Test func racingRegistrationsKeepTheCap() async throws {
        try await Self.eachStore { store in
            let ada = try await StoreContractTests.owner(in: store)
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            let stored = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<8 { group.addTask { try await store.createDeviceKey(Self.key(ada, at: now), limit: 3, audit: []) } }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(stored == 3)
            #expect(try await store.deviceKeys(userID: ada).count == 3)
        }
    }
}
