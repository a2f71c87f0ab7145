import Foundation
import LatchkeyAPI
import LatchkeyCore
import LatchkeyStore
import Testing

/// The contract of ``SessionRefreshStore``, held against the in-memory store, SQLite and
/// PostgreSQL (when `LATCHKEY_TEST_DATABASE_URL` names a server): the read gives the session with
/// its account, and each write lands only on its precondition.
@Suite struct SessionRefreshStoreContractTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func eachStore(_ body: (any SessionRefreshStore) async throws -> Void) async throws {
        try await StoreContractTests.eachStore(memory: InMemoryStore() as any SessionRefreshStore, body)
    }

    /// A stored user with a stored session.
    static func account(_ store: any SessionRefreshStore) async throws -> (user: UserRecord, session: SessionRecord) {
        let (user, identity) = StoreContractTests.user("refresh-\(UUID().uuidString.prefix(8))@example.com", now: now)
        let session = SessionRecord(id: UUID(), userID: user.id, amr: [], refreshSalt: [7], createdAt: now, updatedAt: now)
        if let sql = store as? any AuthStore {
            try await sql.createUser(user, identity: identity, token: nil, outbox: [])
            try await sql.createSession(session, user: try #require(try await sql.user(id: user.id)))
        } else if let memory = store as? InMemoryStore {
            memory.add(user)
            memory.add(session)
        }
        return (user, session)
    }

    static func remove(_ store: any SessionRefreshStore, _ id: UUID) async throws {
        if let sql = store as? any AuthStore { try await sql.deleteSession(id: id, audit: []) }
        (store as? InMemoryStore)?.removeSession(id: id)
    }

    static func events(_ store: any SessionRefreshStore, _ userID: UUID) async throws -> [AuditAction] {
        let query = AuditQuery(userID: userID, limit: 50)
        return try await (store as! any AuditLogStore).auditEvents(query).events.map(\.action)
    }

    static func next(_ session: SessionRecord, by steps: Int64 = 1) -> SessionRecord {
        var next = session
        next.refreshCounter += steps
        next.refreshedAt = now.addingTimeInterval(Double(steps))
        next.updatedAt = next.refreshedAt!
        return next
    }

    /// The session as stored now.
    static func stored(_ store: any SessionRefreshStore, _ id: UUID) async throws -> SessionRecord? {
        if let memory = store as? InMemoryStore { return memory.session(id: id) }
        return try await (store as! any RootStore).session(id: id)
    }

    static let codec = RefreshTokenCodec(serverSecret: Array(repeating: 1, count: 32))

    /// The rules for the token of `session` at `counter`, presented `offset` seconds after ``now``.
    static func rules(_ session: SessionRecord, _ counter: Int64, at offset: TimeInterval = 0, salt: [UInt8]? = nil)
        -> SessionRefresh.Rules
    {
        SessionRefresh.Rules(
            sessionID: session.id, token: codec.encode(sessionID: session.id, counter: counter, salt: salt ?? session.refreshSalt),
            now: now.addingTimeInterval(offset), settings: SessionSettings(refreshReuseInterval: 10), codec: codec,
            client: ClientInfo(ip: "192.0.2.9"), context: AuditContext(userAgent: "contract"), eventID: UUID())
    }

    /// The read, the decision and the write in one call (one transaction on the SQL stores):
    /// the same outcomes everywhere.
    @Test func theRulesDecideOnWhatTheStoreReads() async throws {
        try await Self.eachStore { store in
            let (user, session) = try await Self.account(store)
            // A forged token: refused, nothing written.
            let forged = try #require(try await store.refresh(Self.rules(session, 0, salt: [8]), limits: []))
            #expect(forged.0 == .reject(.refreshTokenNotFound))
            #expect(try await Self.stored(store, session.id) == session)
            // The current token rotates; the answer's account is the user's, with its identities.
            let rotated = try #require(try await store.refresh(Self.rules(session, 0, at: 1), limits: []))
            guard case .rotate(let next) = rotated.0 else { throw AuthError.refreshTokenNotFound }
            #expect(next.refreshCounter == 1 && rotated.1.user?.id == user.id && rotated.1.session == next)
            #expect(try await Self.stored(store, session.id) == next)
            // A token from the future is refused.
            #expect(try #require(try await store.refresh(Self.rules(session, 5, at: 2), limits: [])).0 == .reject(.refreshTokenNotFound))
            // Within the interval the previous token gets the same successor; after it, the
            // session ends and the reuse is recorded, made of the prepared values.
            #expect(try #require(try await store.refresh(Self.rules(session, 0, at: 5), limits: [])).0 == .reuse(next))
            let late = Self.rules(session, 0, at: 12)
            #expect(try #require(try await store.refresh(late, limits: [])).0 == .revoke(.refreshTokenAlreadyUsed))
            #expect(try await Self.stored(store, session.id) == nil)
            let events = try await (store as! any AuditLogStore).auditEvents(AuditQuery(userID: user.id, limit: 50)).events
            #expect(events.map(\.action) == [.refreshTokenReuse])
            #expect(events.first?.id == late.eventID && events.first?.ip == "192.0.2.9" && events.first?.userAgent == "contract")
            #expect(events.first?.createdAt == Self.now.addingTimeInterval(12))
        }
    }

    @Test func ofRacingRefreshesOfOneTokenExactlyOneRotates() async throws {
        try await Self.eachStore { store in
            let (_, session) = try await Self.account(store)
            let decisions = try await withThrowingTaskGroup(of: SessionRefresh.Decision?.self) { group in
                for _ in 0..<8 { group.addTask { try await store.refresh(Self.rules(session, 0, at: 1), limits: [])?.0 } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let next = try #require(try await Self.stored(store, session.id))
            #expect(next.refreshCounter == 1)
            // Each either rotated, got the one successor again, or lost the race and asks again.
            #expect(decisions.filter { $0 == .rotate(next) }.count == 1)
            #expect(decisions.allSatisfy { $0 == nil || $0 == .rotate(next) || $0 == .reuse(next) })
        }
    }

    @Test func anEndedSessionTakesNoRotationAndNoReuse() async throws {
        try await Self.eachStore { store in
            let (_, session) = try await Self.account(store)
            try await Self.remove(store, session.id)
            #expect(try #require(try await store.refresh(Self.rules(session, 0, at: 1), limits: [])).0 == .reject(.refreshTokenNotFound))
            #expect(try await Self.stored(store, session.id) == nil)
        }
    }

    @Test func aBannedUsersSessionIsKeptButNotRefreshed() async throws {
        try await Self.eachStore { store in
            let (user, session) = try await Self.account(store)
            if let sql = store as? any AuthStore {
                var banned = try #require(try await sql.user(id: user.id))
                banned.bannedUntil = Self.now.addingTimeInterval(3600)
                try await sql.updateUser(banned)
            } else if let memory = store as? InMemoryStore {
                memory.change(user.id) { $0.bannedUntil = Self.now.addingTimeInterval(3600) }
            }
            #expect(try #require(try await store.refresh(Self.rules(session, 0, at: 1), limits: [])).0 == .reject(.userBanned))
            #expect(try await Self.stored(store, session.id) == session)
        }
    }
}
