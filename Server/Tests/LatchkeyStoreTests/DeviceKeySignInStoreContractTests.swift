import Foundation
import LatchkeyAPI
import LatchkeyCore
import LatchkeyStore
import Testing

/// The contract of ``DeviceKeySignInStore``, held against the in-memory store, SQLite and
/// PostgreSQL (when `LATCHKEY_TEST_DATABASE_URL` names a server): a redemption is written whole,
/// once per `jti`, only while the key is there and the user is as read — or not at all.
@Suite struct DeviceKeySignInStoreContractTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func eachStore(_ body: (any DeviceKeySignInStore) async throws -> Void) async throws {
        try await StoreContractTests.eachStore(memory: InMemoryStore() as any DeviceKeySignInStore, body)
    }

    /// A stored user with one device key, as the store has them now.
    static func account(_ store: any DeviceKeySignInStore) async throws -> (user: UserRecord, key: DeviceKeyRecord) {
        let (user, identity) = StoreContractTests.user("grant-\(UUID().uuidString.prefix(8))@example.com", now: now)
        if let sql = store as? any AuthStore {
            try await sql.createUser(user, identity: identity, token: nil, outbox: [])
        } else if let memory = store as? InMemoryStore {
            memory.add(user)
        }
        let key = DeviceKeyRecord(id: UUID(), userID: user.id, name: "phone", publicKey: ["kty": "EC"], createdAt: now)
        #expect(try await (store as! any DeviceKeyStore).createDeviceKey(key, limit: 10, audit: []))
        return (try #require(try await store.user(id: user.id)), key)
    }

    static func session(for user: UserRecord, at date: Date = now) -> SessionRecord {
        SessionRecord(
            id: UUID(), userID: user.id, amr: [AuthenticationMethod(method: "device_key", timestamp: 1_800_000_000)], refreshSalt: [9],
            createdAt: date, updatedAt: date)
    }

    static func storedSession(_ store: any DeviceKeySignInStore, _ id: UUID) async throws -> SessionRecord? {
        if let sql = store as? any AuthStore { return try await sql.session(id: id) }
        return (store as? InMemoryStore)?.session(id: id)
    }

    static func events(_ store: any DeviceKeySignInStore, _ userID: UUID) async throws -> [AuditAction] {
        let query = AuditQuery(userID: userID, limit: 50)
        return try await (store as! any AuditLogStore).auditEvents(query).events.map(\.action)
    }

    static func login(_ user: UserRecord) -> AuditEvent {
        AuditEvent(
            action: .login, actorID: user.id, actorName: "ada", userID: user.id, ip: nil, userAgent: nil, details: [:], createdAt: now)
    }

    static func signedIn(_ user: UserRecord) -> UserRecord {
        var signedIn = user
        signedIn.lastSignInAt = now.addingTimeInterval(5)
        return signedIn
    }

    @Test func aRedemptionWritesTheSessionTheUserTheKeyAndTheEvent() async throws {
        try await Self.eachStore { store in
            let (user, key) = try await Self.account(store)
            let session = Self.session(for: user, at: Self.now.addingTimeInterval(5))
            let outcome = try await store.redeemAssertion(
                keyID: key.id, jti: "j1", expiresAt: Self.now.addingTimeInterval(300), session: session, user: Self.signedIn(user),
                audit: [Self.login(user)])
            #expect(outcome == .redeemed)
            #expect(try await Self.storedSession(store, session.id)?.userID == user.id)
            let stored = try #require(try await store.user(id: user.id))
            #expect(stored.lastSignInAt == Self.now.addingTimeInterval(5) && stored.version == user.version + 1)
            let used = try #require(try await store.deviceKey(id: key.id))
            #expect(used.sessionID == session.id && used.lastUsedAt == session.createdAt)
            #expect(try await Self.events(store, user.id) == [.login])
        }
    }

    @Test func aJTIIsRedeemedOncePerKey() async throws {
        try await Self.eachStore { store in
            let (user, key) = try await Self.account(store)
            let first = Self.session(for: user)
            let expires = Self.now.addingTimeInterval(300)
            #expect(
                try await store.redeemAssertion(
                    keyID: key.id, jti: "same", expiresAt: expires, session: first, user: user, audit: [Self.login(user)]) == .redeemed)
            let fresh = try #require(try await store.user(id: user.id))
            let second = Self.session(for: user)
            #expect(
                try await store.redeemAssertion(
                    keyID: key.id, jti: "same", expiresAt: expires, session: second, user: fresh, audit: [Self.login(user)]) == .replayed)
            // Nothing of the replay was written.
            #expect(try await Self.storedSession(store, second.id) == nil)
            #expect(try await store.user(id: user.id)?.version == fresh.version)
            #expect(try await store.deviceKey(id: key.id)?.sessionID == first.id)
            #expect(try await Self.events(store, user.id) == [.login])
        }
    }

    @Test func aKeyThatIsGoneOrAnothersRedeemsNothing() async throws {
        try await Self.eachStore { store in
            let (user, key) = try await Self.account(store)
            let (other, _) = try await Self.account(store)
            // The key belongs to `user`, not `other`.
            let misused = Self.session(for: other)
            #expect(
                try await store.redeemAssertion(
                    keyID: key.id, jti: "j", expiresAt: Self.now, session: misused, user: other, audit: [Self.login(other)]) == .keyGone)
            #expect(try await (store as! any DeviceKeyStore).deleteDeviceKey(id: key.id, userID: user.id, audit: []))
            let session = Self.session(for: user)
            #expect(
                try await store.redeemAssertion(
                    keyID: key.id, jti: "j", expiresAt: Self.now, session: session, user: user, audit: [Self.login(user)]) == .keyGone)
            #expect(try await Self.storedSession(store, session.id) == nil)
            #expect(try await Self.storedSession(store, misused.id) == nil)
            #expect(try await Self.events(store, user.id).isEmpty)
            #expect(try await store.user(id: user.id)?.version == user.version)
        }
    }

    /// A user written since it was read (a ban, a new password) refuses the whole redemption: the
    /// `jti` is not spent, so the same assertion, decided again on a fresh copy, can still redeem.
    @Test func aStaleUserWritesNothingAtAll() async throws {
        try await Self.eachStore { store in
            let (user, key) = try await Self.account(store)
            var stale = Self.signedIn(user)
            stale.version -= 1
            let session = Self.session(for: user)
            await #expect {
                try await store.redeemAssertion(
                    keyID: key.id, jti: "j", expiresAt: Self.now, session: session, user: stale, audit: [Self.login(user)])
            } throws: { ($0 as? StoreError)?.isConflict == true }
            #expect(try await Self.storedSession(store, session.id) == nil)
            #expect(try await store.deviceKey(id: key.id)?.lastUsedAt == nil)
            #expect(try await Self.events(store, user.id).isEmpty)
            #expect(
                try await store.redeemAssertion(
                    keyID: key.id, jti: "j", expiresAt: Self.now, session: session, user: Self.signedIn(user), audit: [Self.login(user)])
                    == .redeemed)
        }
    }

    @Test func ofRacingRedemptionsOfOneJTIExactlyOneLands() async throws {
        try await Self.eachStore { store in
            let (user, key) = try await Self.account(store)
            let outcomes = try await withThrowingTaskGroup(of: AssertionRedemption.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        try await store.redeemAssertion(
                            keyID: key.id, jti: "raced", expiresAt: Self.now, session: Self.session(for: user), user: Self.signedIn(user),
                            audit: [Self.login(user)])
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == .redeemed }.count == 1)
            #expect(outcomes.filter { $0 == .replayed }.count == 7)
            #expect(try await Self.events(store, user.id) == [.login])
        }
    }
}
