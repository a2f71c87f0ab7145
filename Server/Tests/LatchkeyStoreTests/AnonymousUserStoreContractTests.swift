import Foundation
import LatchkeyAPI
import LatchkeyCore
import LatchkeyStore
import Testing

/// The contract of ``AnonymousUserStore``, held against the in-memory store, SQLite and
/// PostgreSQL (when `LATCHKEY_TEST_DATABASE_URL` names a server).
@Suite struct AnonymousUserStoreContractTests {
    static func eachStore(_ body: (any AnonymousUserStore) async throws -> Void) async throws {
        try await StoreContractTests.eachStore(memory: InMemoryStore() as any AnonymousUserStore, body)
    }

    /// An anonymous user made `age` seconds before a fixed time, with its session.
    static func create(in store: any AnonymousUserStore, age: TimeInterval) async throws -> UserRecord {
        let made = Date(timeIntervalSince1970: 1_800_000_000 - age)
        var user = UserRecord(
            id: UUID(), aud: "authenticated", role: "authenticated", email: nil, passwordHash: nil, appMetadata: [:], userMetadata: [:],
            createdAt: made, updatedAt: made)
        user.isAnonymous = true
        let session = SessionRecord(
            id: UUID(), userID: user.id, amr: [AuthenticationMethod(method: "anonymous", timestamp: Int(made.timeIntervalSince1970))],
            refreshSalt: Array(repeating: 2, count: 32), refreshedAt: nil, userAgent: "test", ip: "192.0.2.1", createdAt: made,
            updatedAt: made)
        try await store.createAnonymousUser(user, session: session, audit: [])
        return user
    }

    /// Makes a user permanent, as adding an address does.
    static func makePermanent(_ user: UserRecord, in store: any AnonymousUserStore) async throws {
        if let memory = store as? InMemoryStore {
            memory.change(user.id) { $0.isAnonymous = false }
        } else {
            let sql = store as! any AuthStore
            var permanent = try #require(try await sql.user(id: user.id))
            permanent.isAnonymous = false
            try await sql.updateUser(permanent)
        }
    }

    static let cutoff = Date(timeIntervalSince1970: 1_800_000_000 - 30 * 86400)

    /// Candidates are the anonymous users made before the cutoff, oldest first, at most `limit`.
    @Test func candidatesAreTheOldestAnonymousUsersBeforeTheCutoff() async throws {
        try await Self.eachStore { store in
            let oldest = try await Self.create(in: store, age: 90 * 86400)
            let old = try await Self.create(in: store, age: 60 * 86400)
            _ = try await Self.create(in: store, age: 86400)
            let candidates = try await store.anonymousUsers(createdBefore: Self.cutoff, limit: 500)
            #expect(candidates.filter { [oldest.id, old.id].contains($0) } == [oldest.id, old.id])
            #expect(try await store.anonymousUsers(createdBefore: Self.cutoff, limit: 1).count == 1)
        }
    }

    /// A user who became permanent after it was read as a candidate, or one made after the
    /// cutoff, is kept, and only deletions are recorded.
    @Test func onlyUsersStillAnonymousAndStaleAreDeleted() async throws {
        try await Self.eachStore { store in
            let stale = try await Self.create(in: store, age: 60 * 86400)
            let upgraded = try await Self.create(in: store, age: 60 * 86400)
            let fresh = try await Self.create(in: store, age: 86400)
            try await Self.makePermanent(upgraded, in: store)
            let events = Dictionary(
                uniqueKeysWithValues: [stale, upgraded, fresh].map { user in
                    (
                        user.id,
                        AuditEvents(time: ManualTimeSource(), random: SystemRandomSource()).event(
                            .userDeleted, userID: user.id, name: "anonymous")
                    )
                })
            let deleted = try await store.deleteAnonymousUsers(
                [stale.id, upgraded.id, fresh.id], createdBefore: Self.cutoff, audit: events)
            #expect(deleted == [stale.id])
            #expect(try await store.deleteAnonymousUsers([stale.id], createdBefore: Self.cutoff, audit: events).isEmpty)
            #expect(try await store.deleteAnonymousUsers([], createdBefore: Self.cutoff, audit: events).isEmpty)
            let recorded = try await (store as! any AuditLogStore).auditEvents(AuditQuery(actions: [.userDeleted], limit: 500)).events
                .compactMap(\.userID).filter { [stale.id, upgraded.id, fresh.id].contains($0) }
            #expect(recorded == [stale.id])
        }
    }
}
