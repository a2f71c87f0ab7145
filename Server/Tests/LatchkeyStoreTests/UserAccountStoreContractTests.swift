import Foundation
import LatchkeyAPI
import LatchkeyCore
import LatchkeyStore
import Testing

/// The contract of ``UserAccountStore``, held against the in-memory store, SQLite and
/// PostgreSQL (when `LATCHKEY_TEST_DATABASE_URL` names a server): the user is written only at
/// the version it was read at, a new password ends every session but the caller's, a change to
/// an address another user has is a duplicate, and sign-out ends the sessions of its scope.
@Suite struct UserAccountStoreContractTests {
    typealias Store = UserAccountStore & PasswordSignInStore & AccountReading

    static func eachStore(_ body: (any Store) async throws -> Void) async throws {
        try await StoreContractTests.eachStore(memory: InMemoryStore() as any Store, body)
    }

    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// A new user with three sessions, stored through the protocols.
    static func user(in store: any Store, email: String? = nil) async throws -> (UserRecord, [SessionRecord]) {
        let (user, identity) = StoreContractTests.user(email ?? "account-\(UUID().uuidString.prefix(8))@example.com", now: now)
        if let memory = store as? InMemoryStore {
            memory.add(user)
        } else {
            try await (store as! any AuthStore).createUser(user, identity: identity, token: nil, outbox: [])
        }
        var sessions: [SessionRecord] = []
        for _ in 0..<3 {
            let session = SessionRecord(id: UUID(), userID: user.id, amr: [], refreshSalt: [1], createdAt: now, updatedAt: now)
            let current = try #require(try await store.user(id: user.id))
            try await store.createSession(session, user: current, audit: [])
            sessions.append(session)
        }
        return (try #require(try await store.user(id: user.id)), sessions)
    }

    static func sessionCount(_ user: UserRecord, _ sessions: [SessionRecord], in store: any Store) async throws -> Int {
        var count = 0
        for session in sessions where try await store.account(userID: user.id, sessionID: session.id).session != nil { count += 1 }
        return count
    }

    @Test func theUserIsWrittenOnlyAtTheVersionRead() async throws {
        try await Self.eachStore { store in
            let (user, _) = try await Self.user(in: store)
            var first = user
            first.userMetadata = ["first": true]
            try await store.updateUser(first)
            var second = user
            second.userMetadata = ["second": true]
            do {
                try await store.updateUser(second)
                Issue.record("a stale copy was written")
            } catch let error as StoreError {
                #expect(error.isConflict)
            }
            let stored = try #require(try await store.user(id: user.id))
            #expect(stored.userMetadata == ["first": true] && stored.version == user.version + 1)
        }
    }

    /// An account is deleted whole only at the version read and while the caller's session lasts:
    /// a stale copy or an ended session deletes nothing.
    @Test func anAccountIsDeletedOnlyAsReadAndWhileItsSessionLasts() async throws {
        try await Self.eachStore { store in
            let (user, sessions) = try await Self.user(in: store)
            #expect(!(try await store.deleteAccount(userID: user.id, version: user.version + 1, sessionID: sessions[0].id, audit: [])))
            try await store.deleteSession(id: sessions[0].id, audit: [])
            #expect(!(try await store.deleteAccount(userID: user.id, version: user.version, sessionID: sessions[0].id, audit: [])))
            let (other, _) = try await Self.user(in: store)
            #expect(!(try await store.deleteAccount(userID: user.id, version: user.version, sessionID: UUID(), audit: [])))
            #expect(try await store.user(id: user.id) != nil)
            #expect(try await store.deleteAccount(userID: user.id, version: user.version, sessionID: sessions[1].id, audit: []))
            #expect(try await store.user(id: user.id) == nil)
            #expect(try await Self.sessionCount(user, sessions, in: store) == 0)
            #expect(try await store.user(id: other.id) != nil)
        }
    }

    /// A new password ends every session but the caller's, in the write that stores it.
    @Test func aNewPasswordEndsEverySessionButTheCallers() async throws {
        try await Self.eachStore { store in
            let (user, sessions) = try await Self.user(in: store)
            var changed = user
            changed.passwordHash = "v1$new"
            try await store.updateUser(changed, revokingSessionsExcept: sessions[0].id, outbox: [], audit: [])
            #expect(try await Self.sessionCount(user, sessions, in: store) == 1)
            #expect(try await store.account(userID: user.id, sessionID: sessions[0].id).session != nil)
            // A stale copy ends nothing.
            do {
                try await store.updateUser(changed, revokingSessionsExcept: nil, outbox: [], audit: [])
                Issue.record("a stale copy was written")
            } catch let error as StoreError {
                #expect(error.isConflict)
            }
            #expect(try await Self.sessionCount(user, sessions, in: store) == 1)
        }
    }

    @Test func anAddressAnotherUserHasIsADuplicate() async throws {
        try await Self.eachStore { store in
            let (taken, _) = try await Self.user(in: store)
            let (user, sessions) = try await Self.user(in: store)
            var moving = user
            moving.email = taken.email
            moving.isAnonymous = false
            do {
                try await store.adminUpdateUser(moving, endSessions: true, audit: [])
                Issue.record("an address was stored twice")
            } catch let error as StoreError {
                #expect(error.isDuplicate)
            }
            #expect(try await store.user(id: user.id)?.email == user.email)
            #expect(try await Self.sessionCount(user, sessions, in: store) == 3)
            moving.email = "moved-\(UUID().uuidString.prefix(8))@example.com"
            try await store.adminUpdateUser(moving, endSessions: true, audit: [])
            #expect(try await Self.sessionCount(user, sessions, in: store) == 0)
        }
    }

    @Test func signOutEndsTheSessionsOfItsScope() async throws {
        try await Self.eachStore { store in
            let (user, sessions) = try await Self.user(in: store)
            try await store.deleteSession(id: sessions[2].id, audit: [])
            #expect(try await Self.sessionCount(user, sessions, in: store) == 2)
            try await store.deleteSessions(userID: user.id, except: sessions[0].id, audit: [])
            #expect(try await Self.sessionCount(user, sessions, in: store) == 1)
            try await store.deleteSessions(userID: user.id, except: nil, audit: [])
            #expect(try await Self.sessionCount(user, sessions, in: store) == 0)
        }
    }
}
