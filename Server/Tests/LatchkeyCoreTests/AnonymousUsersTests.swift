import Foundation
import LatchkeyAPI
import Testing

@testable import LatchkeyCore

/// Anonymous sign-ups and the stale-user clean-up against the in-memory store, with a manual
/// clock and seeded randomness: GoTrue's order of checks, what is taken from the request, and
/// that a user who became permanent is never deleted.
@Suite struct AnonymousUsersTests {
    static let client = ClientInfo(ip: "192.0.2.7", userAgent: "test")

    struct Fixture {
        let store = InMemoryStore()
        let time = ManualTimeSource()
        let anonymous: AnonymousUsers

        init(enabled: Bool = true, disableSignup: Bool = false, perIP: Int = 30, batch: Int? = nil) {
            anonymous = AnonymousUsers(
                store: store, limiter: RateLimiter(store: store, time: time),
                settings: AnonymousUsers.Settings(
                    enabled: enabled, disableSignup: disableSignup, perIP: RateLimit(count: perIP, period: 3600), metadataMaxBytes: 64,
                    audience: "authenticated"),
                records: TestSessionParts.records(accounts: store, time: time, random: SeededRandomSource(seed: 11)))
        }

        func signUp(_ data: [String: JSONValue]? = nil) async throws -> Session {
            try await anonymous.signUp(SignUpRequest(data: data), client: AnonymousUsersTests.client)
        }
    }

    @Test func anAnonymousUserIsSignedInAtOnceWithOnlyItsMetadata() async throws {
        let f = Fixture()
        let session = try await f.signUp(["plan": "trial"])
        #expect(session.user.isAnonymous == true && session.user.email == "" && session.user.identities?.isEmpty != false)
        #expect(session.user.userMetadata == ["plan": "trial"])
        let stored = try #require(try await f.store.user(id: session.user.id))
        #expect(stored.isAnonymous && stored.lastSignInAt == f.time.now() && f.store.sessionCount == 1)
        let events = try await f.store.auditEvents(AuditQuery()).events.map(\.action)
        #expect(Set(events) == [.userSignedUp, .login])
    }

    @Test func requestsWithAnAddressOrNumberAreNotAnonymous() {
        #expect(AnonymousUsers.isAnonymous(SignUpRequest()))
        #expect(AnonymousUsers.isAnonymous(SignUpRequest(email: "", phone: "")))
        #expect(!AnonymousUsers.isAnonymous(SignUpRequest(email: "ada@example.com")))
        #expect(!AnonymousUsers.isAnonymous(SignUpRequest(phone: "15550001234")))
    }

    /// GoTrue's order: the setting, the client's budget, then whether sign-ups are allowed; then
    /// the metadata's size. A refusal stores nothing.
    @Test func refusalsComeInGoTruesOrderAndStoreNothing() async throws {
        await #expect(throws: AuthError(.anonymousProviderDisabled, "Anonymous sign-ins are disabled")) {
            try await Fixture(enabled: false, disableSignup: true, perIP: 0).signUp()
        }
        let spent = Fixture(disableSignup: true, perIP: 1)
        await #expect(throws: AuthError.signupDisabled) { try await spent.signUp() }
        await #expect { try await spent.signUp() } throws: { ($0 as? AuthError)?.code == .overRequestRateLimit }
        let f = Fixture()
        await #expect { try await f.signUp(["notes": .string(String(repeating: "x", count: 100))]) } throws: {
            ($0 as? AuthError)?.code == .validationFailed
        }
        #expect(f.store.sessionCount == 0 && spent.store.sessionCount == 0)
    }

    /// Only users past the retention go, oldest first, in batches; one who added an address
    /// stays, and every deletion is recorded.
    @Test func staleUsersAreDeletedAndPermanentOnesKept() async throws {
        let f = Fixture(perIP: 1000)
        var old: [UUID] = []
        for _ in 0..<3 { old.append(try await f.signUp().user.id) }
        f.time.advance(by: 31 * 86400)
        let recent = try await f.signUp().user.id
        f.store.change(old[1]) { user in
            user.isAnonymous = false
            user.email = "kept@example.com"
        }
        #expect(try await f.anonymous.deleteStale(olderThanDays: 30) == 2)
        for (id, kept) in [(old[0], false), (old[2], false), (old[1], true), (recent, true)] {
            #expect((try await f.store.user(id: id) != nil) == kept)
        }
        let deletions = try await f.store.auditEvents(AuditQuery(actions: [.userDeleted])).events
        #expect(Set(deletions.compactMap(\.userID)) == [old[0], old[2]])
        #expect(try await f.anonymous.deleteStale(olderThanDays: 30) == 0)
    }
}
