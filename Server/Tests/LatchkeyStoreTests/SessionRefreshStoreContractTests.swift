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

    @Test func theReadGivesTheSessionWithItsAccount() async throws {
        try await Self.eachStore { store in
            let (user, session) = try await Self.account(store)
            let state = try await store.refreshState(sessionID: session.id)
            #expect(state.session == session && state.user?.id == user.id && state.user?.email == user.email)
            let missing = try await store.refreshState(sessionID: UUID())
            #expect(missing.session == nil && missing.user == nil && missing.identities.isEmpty && missing.factors.isEmpty)
        }
    }

    @Test func aRotationLandsOnlyOnTheCounterItRead() async throws {
        try await Self.eachStore { store in
            let (_, session) = try await Self.account(store)
            #expect(try await store.applyRefresh(.rotate(Self.next(session)), limits: []))
            #expect(try await store.refreshState(sessionID: session.id).session == Self.next(session))
            // A second rotation decided on the same read loses, and writes nothing.
            var late = Self.next(session)
            late.refreshedAt = Self.now.addingTimeInterval(99)
            #expect(try await !store.applyRefresh(.rotate(late), limits: []))
            #expect(try await store.refreshState(sessionID: session.id).session == Self.next(session))
            // Skipping a step is no rotation either.
            #expect(try await !store.applyRefresh(.rotate(Self.next(session, by: 3)), limits: []))
        }
    }

    @Test func ofRacingRotationsExactlyOneLands() async throws {
        try await Self.eachStore { store in
            let (_, session) = try await Self.account(store)
            let landed = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<8 { group.addTask { try await store.applyRefresh(.rotate(Self.next(session)), limits: []) } }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(landed == 1)
            #expect(try await store.refreshState(sessionID: session.id).session?.refreshCounter == 1)
        }
    }

    @Test func anEndedSessionTakesNoRotationAndNoReuse() async throws {
        try await Self.eachStore { store in
            let (_, session) = try await Self.account(store)
            #expect(try await store.applyRefresh(.reuse(session), limits: []))
            #expect(try await !store.applyRefresh(.reuse(Self.next(session)), limits: []))
            try await Self.remove(store, session.id)
            #expect(try await !store.applyRefresh(.rotate(Self.next(session)), limits: []))
            #expect(try await !store.applyRefresh(.reuse(session), limits: []))
            #expect(try await store.refreshState(sessionID: session.id).session == nil)
        }
    }

    @Test func aRevocationDeletesTheSessionWithItsEvent() async throws {
        try await Self.eachStore { store in
            let (user, session) = try await Self.account(store)
            let event = AuditEvent(
                action: .refreshTokenReuse, actorID: user.id, actorName: "ada", userID: user.id, ip: nil, userAgent: nil, details: [:],
                createdAt: Self.now)
            #expect(try await store.applyRefresh(.revoke(sessionID: session.id, audit: [event]), limits: []))
            #expect(try await store.refreshState(sessionID: session.id).session == nil)
            #expect(try await Self.events(store, user.id) == [.refreshTokenReuse])
        }
    }

    /// The read, the decision and the write in one call (one transaction on the SQL stores):
    /// the same outcomes everywhere.
    @Test func theRulesDecideOnWhatTheStoreReads() async throws {
        try await Self.eachStore { store in
            let (user, session) = try await Self.account(store)
            let codec = RefreshTokenCodec(serverSecret: Array(repeating: 1, count: 32))
            func rules(_ counter: Int64, at offset: TimeInterval = 0, salt: [UInt8]? = nil) -> SessionRefresh.Rules {
                SessionRefresh.Rules(
                    sessionID: session.id, token: codec.encode(sessionID: session.id, counter: counter, salt: salt ?? session.refreshSalt),
                    now: Self.now.addingTimeInterval(offset), settings: SessionSettings(refreshReuseInterval: 10),
                    codec: codec, events: AuditEvents(time: ManualTimeSource(Self.now), random: SystemRandomSource()),
                    client: ClientInfo(ip: "192.0.2.9"))
            }
            // A forged token: refused, nothing written.
            let forged = try #require(try await store.refresh(rules(0, salt: [8]), limits: []))
            #expect(forged.0 == .reject(.refreshTokenNotFound))
            // The current token rotates; the answer's account is the user's.
            let rotated = try #require(try await store.refresh(rules(0, at: 1), limits: []))
            guard case .rotate(let next) = rotated.0 else { throw AuthError.refreshTokenNotFound }
            #expect(next.refreshCounter == 1 && rotated.1.user?.id == user.id)
            #expect(try await store.refreshState(sessionID: session.id).session == next)
            // Within the interval the previous token gets the same successor; after it, the
            // session ends and the reuse is recorded.
            #expect(try #require(try await store.refresh(rules(0, at: 5), limits: [])).0 == .reuse(next))
            #expect(try #require(try await store.refresh(rules(0, at: 12), limits: [])).0 == .revoke(.refreshTokenAlreadyUsed))
            #expect(try await store.refreshState(sessionID: session.id).session == nil)
            #expect(try await Self.events(store, user.id) == [.refreshTokenReuse])
        }
    }
}
