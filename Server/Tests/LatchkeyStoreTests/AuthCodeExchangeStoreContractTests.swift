import Foundation
import LatchkeyAPI
import LatchkeyCore
import LatchkeyStore
import Testing

/// The contract of ``AuthCodeExchangeStore``, held against the in-memory store, SQLite and
/// PostgreSQL (when `LATCHKEY_TEST_DATABASE_URL` names a server). On a SQL store a flow state
/// comes from a link redeemed in a browser, as in the server.
@Suite struct AuthCodeExchangeStoreContractTests {
    static func eachStore(_ body: (any AuthCodeExchangeStore) async throws -> Void) async throws {
        try await StoreContractTests.eachStore(memory: InMemoryStore() as any AuthCodeExchangeStore, body)
    }

    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// A user and a flow state for it whose code hashes to `codeHash`.
    static func flow(in store: any AuthCodeExchangeStore, codeHash: String) async throws -> (UserRecord, FlowStateRecord) {
        let (user, identity) = StoreContractTests.user("flow-\(UUID().uuidString.prefix(8))@example.com", now: now)
        let challenge = PKCEChallenge(challenge: String(repeating: "c", count: 43), method: .s256)
        let linkHash = OneTimeSecrets.linkHash(UUID().uuidString)
        let token = OneTimeTokenRecord(
            id: UUID(), userID: user.id, kind: .magiclink, relatesTo: user.email!, codeHash: "x", linkHash: linkHash, redirectTo: nil,
            challenge: challenge, createdAt: now, expiresAt: now.addingTimeInterval(300))
        if let memory = store as? InMemoryStore {
            memory.add(user)
            memory.add(token)
        } else {
            try await (store as! any AuthStore).createUser(user, identity: identity, token: token, outbox: [])
        }
        // A link opened in a browser, as in the server.
        let outcome = try await (store as! any VerificationStore).redeem(
            TestRedemptions.link(linkHash, kinds: [.magiclink], now: now, authCodeHash: codeHash))
        guard case .redeemed(let redemption) = outcome, let flow = redemption.flowState else { throw StoreError.notFound("link") }
        #expect(flow.challenge == challenge && flow.authCodeHash == codeHash && flow.expiresAt == now.addingTimeInterval(300))
        return (try #require(try await store.user(id: user.id)), flow)
    }

    /// A flow state is spent by the first request, returned with its user as stored; a spent or
    /// unknown code finds nothing.
    @Test func aFlowStateIsSpentOnce() async throws {
        try await Self.eachStore { store in
            let hash = OneTimeSecrets.linkHash(UUID().uuidString)
            let (user, flow) = try await Self.flow(in: store, codeHash: hash)
            let spentAt = Self.now.addingTimeInterval(10)
            let consumed = try #require(try await store.consumeFlowState(authCodeHash: hash, now: spentAt))
            var expected = flow
            expected.consumedAt = spentAt
            #expect(consumed.flow == expected)
            #expect(consumed.user?.id == user.id && consumed.user?.version == user.version)
            #expect(try await store.consumeFlowState(authCodeHash: hash, now: spentAt) == nil)
            #expect(try await store.consumeFlowState(authCodeHash: OneTimeSecrets.linkHash("unknown"), now: spentAt) == nil)
        }
    }

    /// A flow state the caller refuses (a wrong verifier) is returned unspent and stays so; racing
    /// refusals and acceptances spend it once, for an acceptance.
    @Test func aRefusedFlowStateStaysUnspent() async throws {
        try await Self.eachStore { store in
            let hash = OneTimeSecrets.linkHash(UUID().uuidString)
            let (_, flow) = try await Self.flow(in: store, codeHash: hash)
            #expect(try await store.consumeFlowState(authCodeHash: hash, now: Self.now, accepting: { _ in false }) == .refused(flow))
            let outcomes = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        switch try await store.consumeFlowState(authCodeHash: hash, now: Self.now, accepting: { _ in index % 2 == 0 }) {
                        case .spent: "spent"
                        case .refused: "refused"
                        case nil: "none"
                        }
                    }
                }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == "spent" }.count == 1)
            #expect(try await store.consumeFlowState(authCodeHash: hash, now: Self.now, accepting: { _ in false }) == nil)
        }
    }

    /// The store does not judge: an expired flow state is spent and returned like any other.
    @Test func anExpiredFlowStateIsSpentAndReturned() async throws {
        try await Self.eachStore { store in
            let hash = OneTimeSecrets.linkHash(UUID().uuidString)
            _ = try await Self.flow(in: store, codeHash: hash)
            let late = Self.now.addingTimeInterval(3600)
            #expect(try await store.consumeFlowState(authCodeHash: hash, now: late)?.flow.expiresAt == Self.now.addingTimeInterval(300))
        }
    }

    /// Requests racing with one code: exactly one gets the flow state.
    @Test func racingExchangesGetTheFlowOnce() async throws {
        try await Self.eachStore { store in
            let hash = OneTimeSecrets.linkHash(UUID().uuidString)
            _ = try await Self.flow(in: store, codeHash: hash)
            let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<6 { group.addTask { try await store.consumeFlowState(authCodeHash: hash, now: Self.now) != nil } }
                return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
            }
            #expect(winners == 1)
        }
    }

    /// A hosted page's hand-over: the flow state names a session and comes back with it, read in
    /// the spending transaction; a session that ended since comes back as none.
    @Test func aHandOverComesWithItsSessionWhileItLasts() async throws {
        try await Self.eachStore { store in
            let (user, identity) = StoreContractTests.user("handoff-\(UUID().uuidString.prefix(8))@example.com", now: Self.now)
            let session = SessionRecord(
                id: UUID(), userID: user.id, aal: "aal1", amr: [], refreshSalt: [1, 2, 3], createdAt: Self.now, updatedAt: Self.now)
            if let memory = store as? InMemoryStore {
                memory.add(user)
            } else {
                try await (store as! any AuthStore).createUser(user, identity: identity, token: nil, outbox: [])
            }
            let stored = try #require(try await store.user(id: user.id))
            try await store.createSession(session, user: stored, audit: [])
            let challenge = PKCEChallenge(challenge: String(repeating: "h", count: 43), method: .s256)
            func handOver() async throws -> String {
                let hash = OneTimeSecrets.linkHash(UUID().uuidString)
                try await store.createFlowState(
                    FlowStateRecord(
                        id: UUID(), authCodeHash: hash, userID: user.id, challenge: challenge, authenticationMethod: "password",
                        createdAt: Self.now, expiresAt: Self.now.addingTimeInterval(300), sessionID: session.id))
                return hash
            }
            let first = try await handOver()
            let consumed = try #require(try await store.consumeFlowState(authCodeHash: first, now: Self.now))
            #expect(consumed.flow.sessionID == session.id && consumed.session?.id == session.id && consumed.user?.id == user.id)
            #expect(try await store.consumeFlowState(authCodeHash: first, now: Self.now) == nil)

            let second = try await handOver()
            try await (store as! any UserAccountStore).deleteSession(id: session.id, audit: [])
            #expect(try await store.consumeFlowState(authCodeHash: second, now: Self.now)?.session == nil)
        }
    }
}
