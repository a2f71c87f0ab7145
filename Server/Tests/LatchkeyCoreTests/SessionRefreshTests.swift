import Foundation
import LatchkeyAPI
import Logging
import Synchronization
import Testing

@testable import LatchkeyCore

/// The refresh grant against the in-memory store and a manual clock: rotation, the reuse
/// interval, reuse detection, bans and session limits, racing refreshes, and a sign-out that
/// lands while a refresh is in flight — without HTTP or a database.
@Suite struct SessionRefreshTests {
    static let client = ClientInfo(ip: "192.0.2.1")

    struct Fixture {
        let memory = InMemoryStore()
        let time = ManualTimeSource()
        let refresher: SessionRefresh
        let answers: SessionAnswers
        let user: UserRecord
        let session: SessionRecord

        init(
            sessions: SessionSettings = SessionSettings(), tokenPerIP: RateLimit = RateLimit(count: 1000, period: 300),
            wrap: (InMemoryStore) -> any SessionRefreshStore = { $0 }
        ) async throws {
            let now = time.now()
            user = UserRecord(
                id: UUID(), aud: "authenticated", role: "authenticated", email: "ada@example.com", passwordHash: nil, appMetadata: [:],
                userMetadata: [:], createdAt: now, updatedAt: now)
            session = SessionRecord(
                id: UUID(), userID: user.id, amr: [], refreshSalt: Array(repeating: 5, count: 32), createdAt: now, updatedAt: now)
            memory.add(user)
            memory.add(session)
            answers = try await TestSessionParts.answers(accounts: memory, time: time, random: SeededRandomSource(seed: 11))
            refresher = SessionRefresh(
                store: wrap(memory), limiter: RateLimiter(store: memory, time: time),
                settings: SessionRefresh.Settings(sessions: sessions, tokenPerIP: tokenPerIP), answers: answers, time: time,
                logger: Logger(label: "test"))
        }

        /// The refresh token of the session at `counter`.
        func token(_ counter: Int64 = 0) -> String {
            answers.refreshCodec.encode(sessionID: session.id, counter: counter, salt: session.refreshSalt)
        }

        func refresh(_ token: String?) async throws -> Session {
            try await refresher.refresh(RefreshTokenGrantRequest(refreshToken: token), client: SessionRefreshTests.client)
        }

        var stored: SessionRecord? { memory.session(id: session.id) }

        func actions() async throws -> [AuditAction] {
            try await memory.auditEvents(AuditQuery(limit: 100)).events.map(\.action)
        }
    }

    @Test func theCurrentTokenRotatesAndThePreviousOneGetsTheSameSuccessorForAWhile() async throws {
        let f = try await Fixture(sessions: SessionSettings(refreshReuseInterval: 10))
        let first = try await f.refresh(f.token(0))
        #expect(first.refreshToken == f.token(1) && first.user.id == f.user.id)
        #expect(f.stored?.refreshCounter == 1 && f.stored?.refreshedAt == f.time.now())
        #expect(try #require(await f.answers.issuer.verify(first.accessToken)).sessionID == f.session.id.uuidString.lowercased())
        // A retry of the same token within the interval: the same successor, nothing written.
        f.time.advance(by: 10)
        #expect(try await f.refresh(f.token(0)).refreshToken == f.token(1))
        #expect(f.stored?.refreshCounter == 1)
        // The successor rotates on.
        #expect(try await f.refresh(f.token(1)).refreshToken == f.token(2))
    }

    @Test func anOlderTokenEndsTheSession() async throws {
        let f = try await Fixture(sessions: SessionSettings(refreshReuseInterval: 10))
        _ = try await f.refresh(f.token(0))
        f.time.advance(by: 11)
        // The previous token after the interval is reuse: the session ends and the event says so.
        #expect(try await errorOf { try await f.refresh(f.token(0)) } == .refreshTokenAlreadyUsed)
        #expect(f.stored == nil)
        #expect(try await f.actions() == [.refreshTokenReuse])
        // Every token of it is dead now.
        #expect(try await errorOf { try await f.refresh(f.token(1)) } == .refreshTokenNotFound)
    }

    @Test func forgedAndFutureTokensChangeNothing() async throws {
        let f = try await Fixture()
        let forged = f.answers.refreshCodec.encode(sessionID: f.session.id, counter: 0, salt: Array(repeating: 6, count: 32))
        for token in [forged, f.token(1), "not-a-token", String(repeating: "a", count: 5000)] {
            #expect(try await errorOf { try await f.refresh(token) } == .refreshTokenNotFound)
        }
        #expect(try await errorOf { try await f.refresh(nil) }?.oauthError == "invalid_request")
        #expect(f.stored == f.session)
        #expect(try await f.actions().isEmpty)
    }

    @Test func aBannedUserIsRefusedAndLimitsEndSessions() async throws {
        let f = try await Fixture(sessions: SessionSettings(timebox: 3600, inactivityTimeout: 600))
        var banned = f.user
        banned.bannedUntil = f.time.now().addingTimeInterval(60)
        f.memory.add(banned)
        #expect(try await errorOf { try await f.refresh(f.token(0)) } == .userBanned)
        #expect(f.stored == f.session)
        // After the ban, more than the inactivity timeout has passed: the session is over.
        f.time.advance(by: 601)
        #expect(try await errorOf { try await f.refresh(f.token(0)) } == .sessionExpired)
        #expect(f.stored == nil)

        let g = try await Fixture(sessions: SessionSettings(timebox: 3600, inactivityTimeout: 600))
        for _ in 0..<6 {
            g.time.advance(by: 599)
            _ = try await g.refresh(g.token(g.stored?.refreshCounter ?? 0))
        }
        // Active all along, but past the timebox.
        g.time.advance(by: 3600 - 6 * 599 + 1)
        #expect(try await errorOf { try await g.refresh(g.token(6)) } == .sessionExpired)
    }

    @Test func racingRefreshesOfOneTokenAllGetTheOneSuccessor() async throws {
        let f = try await Fixture()
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<8 { group.addTask { try await f.refresh(f.token(0)).refreshToken } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(tokens == Array(repeating: f.token(1), count: 8))
        #expect(f.stored?.refreshCounter == 1)
    }

    /// A store where a sign-out lands while the refresh is in flight, before its step runs.
    final class SignOutInFlight: SessionRefreshStore {
        let base: InMemoryStore
        let pending = Mutex(true)

        init(base: InMemoryStore) { self.base = base }

        func refresh(_ rules: SessionRefresh.Rules, limits: [RateLimitCounter]) async throws -> (
            SessionRefresh.Decision, AccountRecords
        )? {
            if pending.withLock({ pending in
                defer { pending = false }
                return pending
            }) {
                base.removeSession(id: rules.sessionID)
            }
            return try await base.refresh(rules, limits: limits)
        }
    }

    @Test func aSignOutThatLandsWhileTheRefreshIsInFlightWins() async throws {
        let f = try await Fixture { SignOutInFlight(base: $0) }
        #expect(try await errorOf { try await f.refresh(f.token(0)) } == .refreshTokenNotFound)
        #expect(f.stored == nil)
    }

    @Test func theBudgetCountsOncePerRequest() async throws {
        let f = try await Fixture(tokenPerIP: RateLimit(count: 2, period: 300))
        _ = try await f.refresh(f.token(0))
        #expect(try await errorOf { try await f.refresh("forged") } == .refreshTokenNotFound)
        #expect(try await errorOf { try await f.refresh(f.token(1)) }?.code == .overRequestRateLimit)
        #expect(f.stored?.refreshCounter == 1)
    }
}
