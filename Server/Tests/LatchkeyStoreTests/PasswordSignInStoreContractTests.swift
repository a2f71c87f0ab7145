import Foundation
import LatchkeyAPI
import LatchkeyCore
import LatchkeyStore
import Testing

/// The contract of ``PasswordSignInStore``, held against the in-memory store, SQLite and
/// PostgreSQL (when `LATCHKEY_TEST_DATABASE_URL` names a server).
@Suite struct PasswordSignInStoreContractTests {
    static func eachStore(_ body: (any PasswordSignInStore) async throws -> Void) async throws {
        try await StoreContractTests.eachStore(memory: InMemoryStore() as any PasswordSignInStore, body)
    }

    /// A stored user with an address and a number.
    static func add(to store: any PasswordSignInStore, phone: String) async throws -> UserRecord {
        var (user, identity) = StoreContractTests.user("signin-\(UUID().uuidString.prefix(8))@example.com")
        user.phone = phone
        user.passwordHash = "hash"
        if let memory = store as? InMemoryStore {
            memory.add(user)
        } else {
            try await (store as! any AuthStore).createUser(user, identity: identity, token: nil, outbox: [])
        }
        return try #require(try await store.user(id: user.id))
    }

    /// Another request's write of `user`: its version moves on.
    static func landChange(to user: UserRecord, in store: any PasswordSignInStore) async throws {
        if let memory = store as? InMemoryStore {
            memory.change(user.id) { $0.userMetadata = ["changed": true] }
        } else {
            var changed = user
            changed.userMetadata = ["changed": true]
            try await (store as! any AuthStore).updateUser(changed)
        }
    }

    static func session(for user: UserRecord) -> SessionRecord {
        SessionRecord(
            id: UUID(), userID: user.id, amr: [AuthenticationMethod(method: "password", timestamp: 1_800_000_000)],
            refreshSalt: Array(repeating: 1, count: 32), refreshedAt: nil, userAgent: "test", ip: "192.0.2.1",
            createdAt: user.createdAt, updatedAt: user.createdAt)
    }

    @Test func usersAreFoundByAddressAndNumber() async throws {
        try await Self.eachStore { store in
            let phone = "1555\(Int.random(in: 1_000_000...9_999_999))"
            let user = try await Self.add(to: store, phone: phone)
            #expect(try await store.user(email: user.email!)?.id == user.id)
            #expect(try await store.user(phone: phone)?.id == user.id)
            #expect(try await store.user(email: "nobody-\(UUID())@example.com") == nil)
            #expect(try await store.user(phone: "1999\(Int.random(in: 1_000_000...9_999_999))") == nil)
        }
    }

    /// The session and the signed-in user land together, at the version the user was read at.
    @Test func aSessionIsStoredWithItsUserAtTheVersionRead() async throws {
        try await Self.eachStore { store in
            let user = try await Self.add(to: store, phone: "1556\(Int.random(in: 1_000_000...9_999_999))")
            var signedIn = user
            signedIn.lastSignInAt = user.createdAt.addingTimeInterval(5)
            signedIn.passwordHash = "upgraded"
            try await store.createSession(Self.session(for: user), user: signedIn, audit: [])
            let stored = try #require(try await store.user(id: user.id))
            #expect(stored.passwordHash == "upgraded" && stored.version == user.version + 1)
            // Written from the old copy again: refused, and no second session.
            await #expect { try await store.createSession(Self.session(for: user), user: signedIn, audit: []) } throws: {
                ($0 as? StoreError)?.isConflict == true
            }
        }
    }

    /// A write that landed since the read refuses the session (the use case decides again).
    @Test func aChangeSinceTheReadRefusesTheSession() async throws {
        try await Self.eachStore { store in
            let user = try await Self.add(to: store, phone: "1557\(Int.random(in: 1_000_000...9_999_999))")
            try await Self.landChange(to: user, in: store)
            await #expect { try await store.createSession(Self.session(for: user), user: user, audit: []) } throws: {
                ($0 as? StoreError)?.isConflict == true
            }
            #expect(try await store.user(id: user.id)?.passwordHash == "hash")
        }
    }
}
