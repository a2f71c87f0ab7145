import Foundation
import LatchkeyAPI
import LatchkeyCore
import LatchkeyStore
import Testing

/// The contract every ``AuthStore`` keeps, run against each implementation (SQLite on disk now).
@Suite struct StoreContractTests {
    /// Runs `body` against every store, each on a fresh database that is closed afterwards.
    static func eachStore(_ body: (any AuthStore) async throws -> Void) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString)/db.sqlite").path
        let database = try await SQLiteDatabase.open(path: path)
        let store = SQLAuthStore(database: database)
        do {
            try await store.migrate()
            try await store.migrate()  // idempotent
            try await body(store)
        } catch {
            try await database.close()
            throw error
        }
        try await database.close()
    }

    static func user(_ email: String, now: Date = Date()) -> (UserRecord, IdentityRecord) {
        let id = UUID()
        let user = UserRecord(
            id: id, aud: "authenticated", role: "authenticated", email: email, passwordHash: nil, appMetadata: [:],
            userMetadata: ["a": 1], createdAt: now, updatedAt: now)
        let identity = IdentityRecord(
            id: UUID(), userID: id, provider: "email", providerID: id.uuidString, identityData: [:], email: email, createdAt: now,
            updatedAt: now)
        return (user, identity)
    }

    static func token(for user: UserRecord, now: Date, code: String = "123456") -> OneTimeTokenRecord {
        OneTimeTokenRecord(
            id: UUID(), userID: user.id, kind: .confirmation, relatesTo: user.email ?? "",
            codeHash: OneTimeSecrets.codeHash(code, userID: user.id), linkHash: UUID().uuidString, redirectTo: nil, createdAt: now,
            expiresAt: now.addingTimeInterval(600))
    }

    @Test func duplicateEmailIsRefusedAndNothingHalfWritten() async throws {
        try await Self.eachStore { store async throws in
            let (user, identity) = Self.user("same@example.com")
            try await store.createUser(user, identity: identity, token: Self.token(for: user, now: Date()))
            let (other, otherIdentity) = Self.user("same@example.com")
            await #expect(throws: StoreError.self) {
                try await store.createUser(other, identity: otherIdentity, token: Self.token(for: other, now: Date()))
            }
            #expect(try await store.user(id: other.id) == nil)
            #expect(try await store.user(email: "same@example.com")?.id == user.id)
            #expect(try await store.identities(userID: user.id).count == 1)
        }
    }

    @Test func redemptionCountsAttemptsAndConsumesOnce() async throws {
        try await Self.eachStore { store async throws in
            let now = Date()
            let (user, identity) = Self.user("code@example.com")
            try await store.createUser(user, identity: identity, token: Self.token(for: user, now: now))
            let selector = OneTimeTokenSelector.newest(userID: user.id, kinds: [.confirmation])
            @Sendable func attempt(_ code: String) async throws -> RedemptionOutcome {
                try await store.redeemOneTimeToken(
                    selector, now: now, maxAttempts: 3,
                    matches: { OneTimeSecrets.codeMatches(code, userID: $0.userID, storedHash: $0.codeHash) },
                    complete: { user, _ in
                        TokenRedemption(
                            user: user,
                            session: SessionRecord(
                                id: UUID(), userID: user.id, amr: [], refreshSalt: [1, 2, 3], createdAt: now, updatedAt: now))
                    })
            }
            guard case .mismatch = try await attempt("000000") else { Issue.record("expected mismatch"); return }
            guard case .redeemed = try await attempt("123456") else { Issue.record("expected redemption"); return }
            guard case .notFound = try await attempt("123456") else { Issue.record("expected consumed"); return }
        }
    }

    @Test func rateLimitCountersAreShared() async throws {
        try await Self.eachStore { store async throws in
            let window = Date(timeIntervalSince1970: 1000)
            for expected in 1...5 {
                #expect(
                    try await store.incrementRateLimit(key: "k", windowStart: window, expiresAt: window.addingTimeInterval(60)) == expected)
            }
            #expect(try await store.rateLimitCount(key: "k", windowStart: window) == 5)
            #expect(try await store.rateLimitCount(key: "other", windowStart: window) == 0)
            #expect(try await store.deleteExpired(now: window.addingTimeInterval(120)) >= 1)
            #expect(try await store.rateLimitCount(key: "k", windowStart: window) == 0)
        }
    }
}
