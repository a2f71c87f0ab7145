import Foundation
import LatchkeyCore
import LatchkeyStore
import Testing

/// The contract of ``PasskeyStore`` over the in-memory store, SQLite and PostgreSQL: a challenge
/// is spent once and only by its ceremony and user, a credential id is registered once, the cap
/// holds against racing registrations, and a passkey is renamed or deleted only by its user.
@Suite struct PasskeyStoreContractTests {
    static func eachStore(_ body: (any PasskeyStore) async throws -> Void) async throws {
        try await StoreContractTests.eachStore(memory: InMemoryStore() as any PasskeyStore, body)
    }

    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func passkey(_ userID: UUID, credential: [UInt8] = (0..<32).map { _ in UInt8.random(in: 0...255) }) -> PasskeyRecord {
        PasskeyRecord(
            id: UUID(), userID: userID, credentialID: credential, publicKey: [0xa5, 1, 2], attestationType: "none",
            aaguid: [UInt8](repeating: 0, count: 16), signCount: 0, transports: ["internal", "hybrid"], backupEligible: true,
            backedUp: true, friendlyName: "iCloud Keychain", createdAt: now, updatedAt: now)
    }

    @Test func aChallengeIsSpentOnceByItsCeremonyAndUser() async throws {
        try await Self.eachStore { store in
            let owner = try await StoreContractTests.owner(in: store)
            let challenge = WebAuthnChallengeRecord(
                id: UUID(), userID: owner, ceremony: .registration, challenge: Array("thirty-two bytes of challenge!!!".utf8),
                createdAt: Self.now, expiresAt: Self.now.addingTimeInterval(300))
            try await store.createWebAuthnChallenge(challenge)
            #expect(try await store.spendWebAuthnChallenge(id: challenge.id, ceremony: .authentication, userID: owner) == nil)
            #expect(try await store.spendWebAuthnChallenge(id: challenge.id, ceremony: .registration, userID: UUID()) == nil)
            #expect(try await store.spendWebAuthnChallenge(id: challenge.id, ceremony: .registration, userID: owner) == challenge)
            #expect(try await store.spendWebAuthnChallenge(id: challenge.id, ceremony: .registration, userID: owner) == nil)
            let signIn = WebAuthnChallengeRecord(
                id: UUID(), userID: nil, ceremony: .authentication, challenge: [1, 2, 3], createdAt: Self.now,
                expiresAt: Self.now.addingTimeInterval(300))
            try await store.createWebAuthnChallenge(signIn)
            #expect(try await store.spendWebAuthnChallenge(id: signIn.id, ceremony: .authentication, userID: owner) == nil)
            #expect(try await store.spendWebAuthnChallenge(id: signIn.id, ceremony: .authentication, userID: nil) == signIn)
        }
    }

    @Test func passkeysAreCappedUniqueAndTheirUsersAlone() async throws {
        try await Self.eachStore { store in
            let ada = try await StoreContractTests.owner(in: store)
            let bob = try await StoreContractTests.owner(in: store)
            let first = Self.passkey(ada)
            #expect(try await store.createPasskey(first, limit: 2, audit: []))
            await #expect {
                try await store.createPasskey(Self.passkey(bob, credential: first.credentialID), limit: 2, audit: [])
            } throws: {
                ($0 as? StoreError)?.isDuplicate == true
            }
            #expect(try await store.createPasskey(Self.passkey(ada), limit: 2, audit: []))
            #expect(try await !store.createPasskey(Self.passkey(ada), limit: 2, audit: []))
            #expect(try await store.passkeys(userID: ada).count == 2)
            #expect(try await store.passkey(credentialID: first.credentialID) == first)
            #expect(try await store.renamePasskey(id: first.id, userID: bob, name: "x", at: Self.now, audit: []) == nil)
            let renamed = try #require(try await store.renamePasskey(id: first.id, userID: ada, name: "Ada's Mac", at: Self.now, audit: []))
            #expect(renamed.friendlyName == "Ada's Mac" && renamed.transports == ["internal", "hybrid"] && renamed.backedUp)
            #expect(try await !store.deletePasskey(id: first.id, userID: bob, audit: []))
            #expect(try await store.deletePasskey(id: first.id, userID: ada, audit: []))
            #expect(try await store.passkey(credentialID: first.credentialID) == nil)
        }
    }

    /// Registrations racing past the cap: exactly as many land as the cap allows.
    @Test func racingRegistrationsStopAtTheCap() async throws {
        try await Self.eachStore { store in
            let ada = try await StoreContractTests.owner(in: store)
            let stored = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<6 { group.addTask { try await store.createPasskey(Self.passkey(ada), limit: 3, audit: []) } }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(stored == 3)
            #expect(try await store.passkeys(userID: ada).count == 3)
        }
    }

    /// A sign-in moves the counter from what it read, once; a user written since refuses it whole.
    @Test func aSignInMovesTheCounterOnceAndOnlyOnTheUserAsRead() async throws {
        try await Self.eachStore { store in
            let (user, identity) = StoreContractTests.user("pk-\(UUID().uuidString.prefix(8))@example.com", now: Self.now)
            if let memory = store as? InMemoryStore {
                memory.add(user)
            } else {
                try await (store as! any AuthStore).createUser(user, identity: identity, token: nil, outbox: [])
            }
            let read = try #require(try await store.user(id: user.id))
            var passkey = Self.passkey(user.id)
            passkey.signCount = 4
            #expect(try await store.createPasskey(passkey, limit: 10, audit: []))
            let session = {
                SessionRecord(id: UUID(), userID: user.id, amr: [], refreshSalt: [9], createdAt: Self.now, updatedAt: Self.now)
            }
            #expect(
                try await store.recordPasskeySignIn(
                    passkeyID: passkey.id, seenCount: 4, newCount: 5, backedUp: false, at: Self.now, session: session(), user: read,
                    audit: []))
            // The same counter again (a replay, or a racing sign-in that read 4): refused.
            let fresh = try #require(try await store.user(id: user.id))
            #expect(
                try await !store.recordPasskeySignIn(
                    passkeyID: passkey.id, seenCount: 4, newCount: 6, backedUp: false, at: Self.now, session: session(), user: fresh,
                    audit: []))
            // A stale user: a conflict, and the counter stays.
            await #expect {
                try await store.recordPasskeySignIn(
                    passkeyID: passkey.id, seenCount: 5, newCount: 6, backedUp: false, at: Self.now, session: session(), user: read,
                    audit: [])
            } throws: { ($0 as? StoreError)?.isConflict == true }
            let stored = try #require(try await store.passkeys(userID: user.id).first)
            #expect(stored.signCount == 5 && stored.lastUsedAt == Self.now && !stored.backedUp)
        }
    }
}
