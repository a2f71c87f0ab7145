import Foundation
import LatchkeyAPI
import LatchkeyCore
import LatchkeyStore
import Testing

/// The contract of ``ExternalIdentityStore``, held against the in-memory store, SQLite and
/// PostgreSQL: a sign-in's write lands whole or not at all, a provider's subject has one
/// identity, and a user is written only at the version it was read at.
@Suite struct ExternalIdentityStoreContractTests {
    typealias Store = ExternalIdentityStore & AccountReading

    static func eachStore(_ body: (any Store) async throws -> Void) async throws {
        try await StoreContractTests.eachStore(memory: InMemoryStore() as any Store, body)
    }

    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// A new user of `provider` with subject `sub`, as a first sign-in writes it.
    static func firstSignIn(sub: String, email: String?, provider: String = "google") -> ExternalSignInWrite {
        let id = UUID()
        let user = UserRecord(
            id: id, aud: "authenticated", role: "authenticated", email: email, passwordHash: nil, emailConfirmedAt: now,
            lastSignInAt: now, appMetadata: ["provider": .string(provider), "providers": [.string(provider)]],
            userMetadata: ["sub": .string(sub)], createdAt: now, updatedAt: now)
        let identity = IdentityRecord(
            id: UUID(), userID: id, provider: provider, providerID: sub, identityData: ["sub": .string(sub), "name": "Ada"],
            email: email, lastSignInAt: now, createdAt: now, updatedAt: now)
        let session = SessionRecord(id: UUID(), userID: id, amr: [], refreshSalt: [1], createdAt: now, updatedAt: now)
        return ExternalSignInWrite(user: .insert(user), identity: .insert(identity), session: session, audit: [])
    }

    static func tag() -> String { UUID().uuidString.prefix(8).lowercased() }

    @Test func aFirstSignInIsFoundByItsSubject() async throws {
        try await Self.eachStore { store in
            let sub = "sub-\(Self.tag())"
            let write = Self.firstSignIn(sub: sub, email: "\(sub)@example.com")
            try await store.applyExternalSignIn(write)
            let found = try #require(try await store.identity(provider: "google", providerID: sub))
            guard case .insert(let user) = write.user, case .insert(let identity) = write.identity else { return }
            #expect(found.identity == identity && found.user.id == user.id && found.user.email == user.email)
            #expect(try await store.identity(provider: "apple", providerID: sub) == nil)
            let account = try await store.account(userID: user.id, sessionID: write.session?.id)
            #expect(account.session?.id == write.session?.id && account.identities.map(\.providerID) == [sub])
        }
    }

    /// Two first sign-ins of one subject: the second is refused whole (no user, no session).
    @Test func aSubjectHasOneIdentityAndARefusedWriteLeavesNothing() async throws {
        try await Self.eachStore { store in
            let sub = "sub-\(Self.tag())"
            try await store.applyExternalSignIn(Self.firstSignIn(sub: sub, email: nil))
            let second = Self.firstSignIn(sub: sub, email: "\(sub)@example.com")
            await #expect { try await store.applyExternalSignIn(second) } throws: { ($0 as? StoreError)?.isDuplicate == true }
            guard case .insert(let user) = second.user else { return }
            #expect(try await store.user(id: user.id) == nil)
            #expect(try await store.user(email: "\(sub)@example.com") == nil)
            // A new user with an address someone has: refused too, its identity with it.
            try await store.applyExternalSignIn(Self.firstSignIn(sub: "holder-\(sub)", email: "\(sub)@example.com"))
            await #expect {
                try await store.applyExternalSignIn(Self.firstSignIn(sub: "clash-\(sub)", email: "\(sub)@example.com"))
            } throws: { ($0 as? StoreError)?.isDuplicate == true }
            #expect(try await store.identity(provider: "google", providerID: "clash-\(sub)") == nil)
        }
    }

    /// A returning sign-in replaces the identity's data and writes the user only at the version
    /// it was read at.
    @Test func aReturningSignInWritesOnlyOverWhatItRead() async throws {
        try await Self.eachStore { store in
            let sub = "sub-\(Self.tag())"
            try await store.applyExternalSignIn(Self.firstSignIn(sub: sub, email: "\(sub)@example.com"))
            let (identity, user) = try #require(try await store.identity(provider: "google", providerID: sub))
            var refreshed = identity
            refreshed.identityData["name"] = "Ada King"
            refreshed.lastSignInAt = Self.now.addingTimeInterval(60)
            var signedIn = user
            signedIn.lastSignInAt = Self.now.addingTimeInterval(60)
            let session = SessionRecord(id: UUID(), userID: user.id, amr: [], refreshSalt: [2], createdAt: Self.now, updatedAt: Self.now)
            try await store.applyExternalSignIn(
                ExternalSignInWrite(user: .update(signedIn), identity: .update(refreshed), session: session, audit: []))
            let after = try #require(try await store.identity(provider: "google", providerID: sub))
            #expect(after.identity.identityData["name"] == "Ada King" && after.user.version == user.version + 1)
            // The same write again is at a stale version: nothing changes.
            var stale = refreshed
            stale.identityData["name"] = "Someone Else"
            let again = SessionRecord(id: UUID(), userID: user.id, amr: [], refreshSalt: [3], createdAt: Self.now, updatedAt: Self.now)
            await #expect {
                try await store.applyExternalSignIn(
                    ExternalSignInWrite(user: .update(signedIn), identity: .update(stale), session: again, audit: []))
            } throws: { ($0 as? StoreError)?.isConflict == true }
            #expect(try await store.identity(provider: "google", providerID: sub)?.identity.identityData["name"] == "Ada King")
            #expect(try await store.account(userID: user.id, sessionID: again.id).session == nil)
        }
    }

    /// An unlink deletes one of the user's identities with the user's write, never its last, and
    /// never another user's.
    @Test func anUnlinkKeepsTheLastIdentity() async throws {
        try await Self.eachStore { store in
            let sub = "sub-\(Self.tag())"
            try await store.applyExternalSignIn(Self.firstSignIn(sub: sub, email: "\(sub)@example.com"))
            let (first, user) = try #require(try await store.identity(provider: "google", providerID: sub))
            let second = IdentityRecord(
                id: UUID(), userID: user.id, provider: "apple", providerID: "apple-\(sub)", identityData: [:], email: nil,
                createdAt: Self.now.addingTimeInterval(1), updatedAt: Self.now)
            var linked = user
            linked.lastSignInAt = Self.now.addingTimeInterval(1)
            let session = SessionRecord(id: UUID(), userID: user.id, amr: [], refreshSalt: [4], createdAt: Self.now, updatedAt: Self.now)
            try await store.applyExternalSignIn(
                ExternalSignInWrite(user: .update(linked), identity: .insert(second), session: session, audit: []))
            #expect(try await store.identities(userID: user.id).map(\.id) == [first.id, second.id])
            let current = try #require(try await store.user(id: user.id))
            let other = Self.firstSignIn(sub: "other-\(sub)", email: nil)
            try await store.applyExternalSignIn(other)
            guard case .insert(let stranger) = other.user else { return }
            let strangerNow = try #require(try await store.user(id: stranger.id))
            #expect(try await !store.unlinkIdentity(id: first.id, user: strangerNow, held: nil, audit: [], outbox: []))
            #expect(try await store.unlinkIdentity(id: first.id, user: current, held: nil, audit: [], outbox: []))
            #expect(try await store.identities(userID: user.id).map(\.id) == [second.id])
            let now = try #require(try await store.user(id: user.id))
            #expect(now.version == current.version + 1)
            #expect(try await !store.unlinkIdentity(id: second.id, user: now, held: nil, audit: [], outbox: []))
            #expect(try await store.identities(userID: user.id).count == 1)
        }
    }

    /// A link or unlink made under a session lands only while that session still exists at the
    /// level it was read at: a sign-out, or a first factor raising or ending it, landing first
    /// makes the write a conflict that stores nothing (the use case then decides again).
    @Test func aLinkOrUnlinkNeedsItsSessionStillThere() async throws {
        try await Self.eachStore { store in
            let sub = "sub-\(Self.tag())"
            let first = Self.firstSignIn(sub: sub, email: "\(sub)@example.com")
            try await store.applyExternalSignIn(first)
            let (identity, user) = try #require(try await store.identity(provider: "google", providerID: sub))
            let held = try #require(first.session)
            let apple = IdentityRecord(
                id: UUID(), userID: user.id, provider: "apple", providerID: "apple-\(sub)", identityData: [:], email: nil,
                createdAt: Self.now.addingTimeInterval(1), updatedAt: Self.now)
            var raised = held
            raised.aal = "aal2"
            let newSession = SessionRecord(id: UUID(), userID: user.id, amr: [], refreshSalt: [5], createdAt: Self.now, updatedAt: Self.now)
            // Read at aal2, but the session is aal1 now: nothing is written.
            await #expect(throws: StoreError.self) {
                try await store.applyExternalSignIn(
                    ExternalSignInWrite(user: .update(user), identity: .insert(apple), session: newSession, audit: [], held: raised))
            }
            #expect(try await store.identities(userID: user.id).map(\.id) == [identity.id])
            #expect(try await store.user(id: user.id)?.version == user.version)
            // At the level read: linked, with the session still there.
            try await store.applyExternalSignIn(
                ExternalSignInWrite(user: .update(user), identity: .insert(apple), session: newSession, audit: [], held: held))
            #expect(try await store.identities(userID: user.id).count == 2)
            // The session ended: the unlink under it stores nothing.
            let current = try #require(try await store.user(id: user.id))
            let stranger = SessionRecord(id: UUID(), userID: user.id, amr: [], refreshSalt: [6], createdAt: Self.now, updatedAt: Self.now)
            await #expect(throws: StoreError.self) {
                try await store.unlinkIdentity(id: apple.id, user: current, held: stranger, audit: [], outbox: [])
            }
            #expect(try await store.identities(userID: user.id).count == 2)
            #expect(try await store.unlinkIdentity(id: apple.id, user: current, held: held, audit: [], outbox: []))
            #expect(try await store.identities(userID: user.id).count == 1)
        }
    }
}
