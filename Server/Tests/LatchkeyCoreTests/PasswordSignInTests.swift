import Foundation
import LatchkeyAPI
import Synchronization
import Testing

@testable import LatchkeyCore

/// The password grant against the in-memory store, a counting hasher and a manual clock: the
/// same answer and work for every refusal, the per-account lock-out, confirmation and bans, the
/// hash upgrade, and a password changed while a sign-in is in flight — without HTTP or a database.
@Suite struct PasswordSignInTests {
    static let client = ClientInfo(ip: "192.0.2.1", userAgent: "test")
    static let password = "correct horse battery staple"

    /// "Hashes" by naming the password, in two versions (`v1` is current, `v0` needs an
    /// upgrade), and counts every verification: enough to see the rules, nothing to compute.
    final class CountingHasher: PasswordHasher {
        let verifications = Mutex(0)
        func hash(_ password: String) async throws -> String { "v1$" + password }
        func verify(_ password: String, against hash: String) async throws -> Bool {
            verifications.withLock { $0 += 1 }
            return hash.split(separator: "$", maxSplits: 1).last.map(String.init) == password
        }
        func needsRehash(_ hash: String) -> Bool { hash.hasPrefix("v0$") }
        func decoyHash() async throws -> String { "v1$decoy-nobody-knows" }
    }

    struct Fixture {
        let memory = InMemoryStore()
        let hasher = CountingHasher()
        let time = ManualTimeSource()
        let signIn: PasswordSignIn
        let user: UserRecord

        init(
            failures: Int = 3, autoconfirm: Bool = false, phoneEnabled: Bool = true, confirmed: Bool = true,
            hash: String? = "v1$" + password,
            minLength: Int = 8
        ) async throws {
            let now = time.now()
            user = UserRecord(
                id: UUID(), aud: "authenticated", role: "authenticated", email: "ada@example.com", phone: "15550001234",
                passwordHash: hash, emailConfirmedAt: confirmed ? now : nil, phoneConfirmedAt: confirmed ? now : nil, appMetadata: [:],
                userMetadata: [:], createdAt: now, updatedAt: now)
            memory.add(user)
            let policy = PasswordPolicy(settings: PasswordSettings(minLength: minLength, maxBytes: 72), blocklist: ["password1234"])
            signIn = PasswordSignIn(
                store: memory, passwords: Passwords(policy: policy, hasher: hasher, decoyHash: "v1$decoy-nobody-knows"),
                limiter: RateLimiter(store: memory, time: time),
                settings: PasswordSignIn.Settings(
                    tokenPerIP: RateLimit(count: 1000, period: 300), failuresPerAccount: RateLimit(count: failures, period: 900),
                    mailerAutoconfirm: autoconfirm, phoneEnabled: phoneEnabled, smsAutoconfirm: autoconfirm),
                answers: try await TestSessionParts.answers(accounts: memory, time: time, random: SeededRandomSource(seed: 5)), time: time)
        }

        func attempt(email: String? = "ada@example.com", phone: String? = nil, _ password: String = PasswordSignInTests.password)
            async throws -> Session
        {
            try await signIn.signIn(
                PasswordGrantRequest(email: email, phone: phone, password: password), client: PasswordSignInTests.client)
        }

        var reasons: [String] {
            get async throws {
                try await memory.auditEvents(AuditQuery(actions: [.loginFailed], limit: 100)).events.reversed()
                    .compactMap { $0.details["reason"]?.stringValue }
            }
        }
    }

    @Test func theRightPasswordSignsInByEmailOrPhone() async throws {
        let f = try await Fixture()
        let session = try await f.attempt()
        #expect(session.user.id == f.user.id && session.weakPassword == nil)
        _ = try await f.attempt(email: nil, phone: "+1 555 000 1234")
        #expect(f.memory.sessions(userID: f.user.id).count == 2)
        #expect(try await f.memory.user(id: f.user.id)?.lastSignInAt == f.time.now())
        let logins = try await f.memory.auditEvents(AuditQuery(actions: [.login])).events
        #expect(logins.count == 2 && logins.allSatisfy { $0.details["method"] == "password" })
    }

    /// Unknown account, no password and wrong password: one answer, one verification each.
    @Test func everyRefusalLooksAndCostsTheSame() async throws {
        let f = try await Fixture(failures: 100)
        let passwordless = try await Fixture(failures: 100, hash: nil)
        for attempt in [
            { try await f.attempt("wrong password here") }, { try await f.attempt(email: "nobody@example.com") },
            { try await passwordless.attempt() },
        ] as [() async throws -> Session] {
            await #expect(throws: AuthError.invalidCredentials) { try await attempt() }
        }
        let counts = (f.hasher.verifications.withLock { $0 }, passwordless.hasher.verifications.withLock { $0 })
        #expect(counts == (2, 1))
        #expect(try await f.reasons == ["invalid_credentials", "unknown_user"])
        #expect(try await passwordless.reasons == ["invalid_credentials"])
    }

    /// Refused before any hashing: a password past the byte limit, a malformed address or number,
    /// a phone while phone sign-ins are off, no password.
    @Test(arguments: [
        PasswordGrantRequest(email: "ada@example.com", password: String(repeating: "a", count: 73)),
        PasswordGrantRequest(email: "not an address", password: password), PasswordGrantRequest(phone: "+0123", password: password),
        PasswordGrantRequest(email: "ada@example.com", password: ""), PasswordGrantRequest(),
    ])
    func malformedRequestsAreRefusedWithoutHashing(_ request: PasswordGrantRequest) async throws {
        let f = try await Fixture()
        await #expect(throws: AuthError.invalidCredentials) { try await f.signIn.signIn(request, client: Self.client) }
        #expect(f.hasher.verifications.withLock { $0 } == 0)
        let off = try await Fixture(phoneEnabled: false)
        await #expect(throws: AuthError.invalidCredentials) { try await off.attempt(email: nil, phone: "+15550001234") }
        #expect(off.hasher.verifications.withLock { $0 } == 0)
    }

    /// The limit-th failure locks the account (recorded once); then even the right password gets
    /// 429 until the window ends. A right password takes back its own attempt, not earlier
    /// failures.
    @Test func failuresLockTheAccountNotTheRightPassword() async throws {
        let f = try await Fixture(failures: 3)
        await #expect(throws: AuthError.invalidCredentials) { try await f.attempt("wrong one") }
        _ = try await f.attempt()
        _ = try await f.attempt()
        // The first failure still counts: two more reach the limit.
        for _ in 0..<2 { await #expect(throws: AuthError.invalidCredentials) { try await f.attempt("wrong one") } }
        await #expect(throws: AuthError.self) { try await f.attempt() }
        let lockouts = try await f.memory.auditEvents(AuditQuery(actions: [.lockout])).events
        #expect(lockouts.count == 1 && lockouts[0].details["kind"] == "password")
        f.time.advance(by: 901)
        _ = try await f.attempt()
    }

    @Test func anUnconfirmedAccountSignsInOnlyUnderAutoconfirm() async throws {
        let f = try await Fixture(confirmed: false)
        await #expect(throws: AuthError.emailNotConfirmed) { try await f.attempt() }
        await #expect(throws: AuthError.phoneNotConfirmed) { try await f.attempt(email: nil, phone: "15550001234") }
        #expect(try await f.reasons == ["email_not_confirmed", "phone_not_confirmed"])
        let auto = try await Fixture(autoconfirm: true, confirmed: false)
        _ = try await auto.attempt()
        _ = try await auto.attempt(email: nil, phone: "15550001234")
    }

    @Test func aBannedUserIsRefused() async throws {
        let f = try await Fixture()
        f.memory.change(f.user.id) { $0.bannedUntil = f.time.now().addingTimeInterval(60) }
        await #expect(throws: AuthError.userBanned) { try await f.attempt() }
        #expect(try await f.reasons == ["user_banned"])
        f.time.advance(by: 61)
        _ = try await f.attempt()
    }

    @Test func anOldHashIsUpgradedAtSignIn() async throws {
        let f = try await Fixture(hash: "v0$" + Self.password)
        _ = try await f.attempt()
        #expect(try await f.memory.user(id: f.user.id)?.passwordHash == "v1$" + Self.password)
    }

    @Test func aWeakPasswordSignsInAndIsToldSo() async throws {
        let f = try await Fixture(hash: "v1$password1234", minLength: 8)
        let session = try await f.attempt("password1234")
        #expect(session.weakPassword?.reasons.isEmpty == false)
    }

    /// A password reset, a ban or an address change that lands between the check and the write
    /// wins: the sign-in is decided again on the fresh copy. A benign write (another sign-in's
    /// time) is kept and the sign-in goes on.
    @Test(arguments: ["reset", "ban", "address", "benign"])
    func aDecisionThatLandsInFlightWins(_ landing: String) async throws {
        let time = ManualTimeSource()
        let memory = InMemoryStore()
        let now = time.now()
        let user = UserRecord(
            id: UUID(), aud: "authenticated", role: "authenticated", email: "ada@example.com", passwordHash: "v1$" + Self.password,
            emailConfirmedAt: now, appMetadata: [:], userMetadata: [:], createdAt: now, updatedAt: now)
        memory.add(user)
        let store = LandingFirstStore(base: memory) { store in
            store.change(user.id) { user in
                switch landing {
                case "reset": user.passwordHash = "v1$another password entirely"
                case "ban": user.bannedUntil = now.addingTimeInterval(3600)
                case "address": user.email = "someone-else@example.com"
                default: user.lastSignInAt = now.addingTimeInterval(-5)
                }
            }
        }
        let signIn = PasswordSignIn(
            store: store,
            passwords: Passwords(
                policy: PasswordPolicy(settings: PasswordSettings(), blocklist: []), hasher: CountingHasher(), decoyHash: "v1$x"),
            limiter: RateLimiter(store: memory, time: time),
            settings: PasswordSignIn.Settings(
                tokenPerIP: RateLimit(count: 100, period: 300), failuresPerAccount: RateLimit(count: 5, period: 900),
                mailerAutoconfirm: false,
                phoneEnabled: true, smsAutoconfirm: false),
            answers: try await TestSessionParts.answers(accounts: memory, time: time, random: SeededRandomSource(seed: 1)), time: time)
        let request = PasswordGrantRequest(email: "ada@example.com", password: Self.password)
        switch landing {
        case "benign":
            _ = try await signIn.signIn(request, client: Self.client)
            #expect(memory.sessions(userID: user.id).count == 1)
        case "ban":
            await #expect(throws: AuthError.userBanned) { try await signIn.signIn(request, client: Self.client) }
            #expect(memory.sessions(userID: user.id).isEmpty)
        default:
            await #expect(throws: AuthError.invalidCredentials) { try await signIn.signIn(request, client: Self.client) }
            #expect(memory.sessions(userID: user.id).isEmpty)
        }
    }
}
