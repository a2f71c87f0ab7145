import Foundation
import LatchkeyAPI
import Logging
import Synchronization
import Testing

@testable import LatchkeyCore

/// The signed-in user's own account against the in-memory store, a manual clock and seeded
/// randomness: metadata, a new password (and what it ends), a new address or number, the second
/// factor and reauthentication a credential change needs, anonymous users made permanent, a ban
/// landing in flight, and the three sign-out scopes — without HTTP or a database.
@Suite struct UserAccountTests {
    static let client = ClientInfo(ip: "192.0.2.7", userAgent: "test")
    static let decoder = JSONDecoder()
    static let password = "correct horse battery staple"

    struct Fixture {
        let memory = InMemoryStore()
        let time = ManualTimeSource()
        let sms = OneTimeCodesTests.RecordingSMS()
        let account: UserAccount
        let user: UserRecord
        let sessions: [SessionRecord]

        init(
            configure: (inout AuthConfiguration) -> Void = { _ in }, edit: (inout UserRecord) -> Void = { _ in },
            store: ((InMemoryStore) -> any UserAccountStore)? = nil
        ) {
            var configuration = AuthConfiguration(siteURL: "http://localhost:3000")
            configuration.rateLimits = .unlimited
            configure(&configuration)
            let now = time.now()
            var user = UserRecord(
                id: UUID(), aud: "authenticated", role: "authenticated", email: "ada@example.com",
                passwordHash: "v1$" + UserAccountTests.password, emailConfirmedAt: now, appMetadata: ["provider": "email"],
                userMetadata: ["team": "core", "keep": true], createdAt: now, updatedAt: now)
            edit(&user)
            self.user = user
            memory.add(user)
            // Three sessions: the caller's first, two others.
            sessions = (0..<3).map { age in
                SessionRecord(
                    id: UUID(), userID: user.id, aal: "aal1", amr: [], refreshSalt: [], createdAt: now.addingTimeInterval(Double(-age)),
                    updatedAt: now)
            }
            for session in sessions { try? memory.createSessionNow(session) }
            let parts = TestCodeParts(memory: memory, time: time, sms: sms, configuration: configuration, seed: 55)
            let policy = PasswordPolicy(settings: configuration.password, blocklist: ["password1234"])
            account = UserAccount(
                store: store?(memory) ?? memory,
                passwords: Passwords(policy: policy, hasher: PasswordSignInTests.CountingHasher(), decoyHash: "v1$decoy"),
                codes: parts.codes,
                records: parts.records, limiter: parts.limiter, settings: UserAccount.Settings(configuration))
        }

        /// The caller: the user with the first session (made `age` seconds after the session).
        func principal(aal: String = "aal1", user: UserRecord? = nil, admin: Bool = false) -> Principal {
            var session = sessions[0]
            session.aal = aal
            let current = user ?? self.user
            return Principal(claims: AccessTokenClaims(sub: current.id.uuidString), user: current, session: session, isAdmin: admin)
        }

        func update(_ json: String, principal: Principal? = nil) async throws -> User {
            try await account.update(
                UserAccountTests.decoder.decode(UpdateUserRequest.self, from: Data(json.utf8)), principal: principal ?? self.principal(),
                client: UserAccountTests.client)
        }

        var stored: UserRecord { get async throws { try #require(try await memory.user(id: user.id)) } }
        var sessionIDs: Set<UUID> { Set(memory.sessions(userID: user.id).map(\.id)) }
    }

    @Test func metadataMergesAndANullDeletesAKey() async throws {
        let f = Fixture()
        let answer = try await f.update(#"{"data":{"team":"platform","keep":null,"new":1}}"#)
        #expect(answer.userMetadata == ["team": "platform", "new": 1])
        #expect(try await f.stored.userMetadata == ["team": "platform", "new": 1])
        #expect(f.sessionIDs.count == 3)
        let big = String(repeating: "x", count: 20_000)
        #expect(try await errorOf { try await f.update(#"{"data":{"big":"\#(big)"}}"#) }?.code == .validationFailed)
        #expect(try await errorOf { try await f.update(#"{"app_metadata":{"role":"x"}}"#) }?.code == .notAdmin)
    }

    /// A new password is checked, hashed and stored; every other session ends, the old address is
    /// told, and the change is recorded as made by update or by recovery.
    @Test func aNewPasswordEndsTheOtherSessionsAndIsAnnounced() async throws {
        let f = Fixture()
        _ = try await f.update(#"{"password":"a much longer passphrase"}"#)
        #expect(try await f.stored.passwordHash == "v1$a much longer passphrase")
        #expect(f.sessionIDs == [f.sessions[0].id])
        #expect(f.memory.outbox.map(\.recipient) == ["ada@example.com"])
        let changed = try await f.memory.auditEvents(AuditQuery(actions: [.passwordChanged])).events
        #expect(changed.map { $0.details["via"] } == ["update"])
        #expect(try await errorOf { try await f.update(#"{"password":"short"}"#) }?.code == .weakPassword)
        let fresh = try await f.stored
        let same = try await errorOf {
            try await f.update(#"{"password":"a much longer passphrase"}"#, principal: f.principal(user: fresh))
        }
        #expect(same == AuthError.samePassword)
    }

    @Test func theCurrentPasswordIsAskedForWhenConfigured() async throws {
        let f = Fixture { $0.password.requireCurrentPassword = true }
        #expect(try await errorOf { try await f.update(#"{"password":"a much longer passphrase"}"#) }?.code == .currentPasswordRequired)
        let wrong = #"{"password":"a much longer passphrase","current_password":"not it at all"}"#
        #expect(try await errorOf { try await f.update(wrong) }?.code == .currentPasswordInvalid)
        _ = try await f.update(#"{"password":"a much longer passphrase","current_password":"\#(UserAccountTests.password)"}"#)
    }

    /// With a verified second factor, a credential change needs an `aal2` session.
    @Test func aCredentialChangeNeedsTheSecondFactor() async throws {
        let f = Fixture()
        let now = f.time.now()
        f.memory.add(
            FactorRecord(
                id: UUID(), userID: f.user.id, friendlyName: nil, status: .verified, sealedSecret: "", createdAt: now, updatedAt: now))
        #expect(try await errorOf { try await f.update(#"{"password":"a much longer passphrase"}"#) }?.code == .insufficientAAL)
        #expect(try await errorOf { try await f.update(#"{"email":"new@example.com"}"#) }?.code == .insufficientAAL)
        _ = try await f.update(#"{"data":{"team":"x"}}"#)
        _ = try await f.update(#"{"password":"a much longer passphrase"}"#, principal: f.principal(aal: "aal2"))
    }

    /// With reauthentication required, an old session needs the nonce emailed to the user, once.
    @Test func anOldSessionNeedsAFreshNonce() async throws {
        let f = Fixture { $0.password.requireReauthentication = true }
        f.time.advance(by: 86_401)
        let change = #"{"password":"a much longer passphrase"}"#
        #expect(try await errorOf { try await f.update(change) } == AuthError.reauthenticationNeeded)
        let token = OneTimeTokenRecord(
            id: UUID(), userID: f.user.id, kind: .reauthentication, relatesTo: "ada@example.com",
            codeHash: OneTimeSecrets.codeHash("424242", userID: f.user.id), linkHash: "r", redirectTo: nil, createdAt: f.time.now(),
            expiresAt: f.time.now().addingTimeInterval(600))
        f.memory.add(token)
        let wrong = #"{"password":"a much longer passphrase","nonce":"000000"}"#
        #expect(try await errorOf { try await f.update(wrong) } == AuthError.reauthenticationNotValid)
        _ = try await f.update(#"{"password":"a much longer passphrase","nonce":"424242"}"#)
        let fresh = try await f.stored
        let again = #"{"password":"another long passphrase","nonce":"424242"}"#
        #expect(try await errorOf { try await f.update(again, principal: f.principal(user: fresh)) } == AuthError.reauthenticationNotValid)
    }

    /// A new address waits for its codes (to the new and the current address); a taken one is
    /// refused.
    @Test func aNewAddressWaitsForItsCodes() async throws {
        let f = Fixture()
        let answer = try await f.update(#"{"email":"New@Example.com"}"#)
        #expect(answer.email == "ada@example.com" && answer.newEmail == "new@example.com")
        #expect(Set(f.memory.outbox.map(\.recipient)) == ["ada@example.com", "new@example.com"])
        #expect(try await f.stored.emailChangeConfirmationsNeeded == 2)
        let other = UserRecord(
            id: UUID(), aud: "authenticated", role: "authenticated", email: "taken@example.com", passwordHash: nil, appMetadata: [:],
            userMetadata: [:], createdAt: f.time.now(), updatedAt: f.time.now())
        f.memory.add(other)
        f.time.advance(by: 61)
        let fresh = try await f.stored
        #expect(
            try await errorOf { try await f.update(#"{"email":"taken@example.com"}"#, principal: f.principal(user: fresh)) }
                == AuthError.emailExists)
    }

    @Test func aNewNumberGetsAnSMSCode() async throws {
        let f = Fixture()
        let answer = try await f.update(#"{"phone":"+1 555 765 4321","data":{"team":"phones"}}"#)
        #expect(answer.newPhone == "15557654321" && answer.userMetadata["team"] == "phones")
        #expect(f.sms.sent.withLock { $0.map(\.phone) } == ["15557654321"])
        let stored = try await f.stored
        #expect(stored.newPhone == "15557654321" && stored.userMetadata["team"] == "phones")
    }

    /// An anonymous user needs an address with a password; under autoconfirm the address makes
    /// the user permanent at once.
    @Test func anAnonymousUserBecomesPermanentWithAnAddress() async throws {
        let f = Fixture(configure: { $0.mailerAutoconfirm = true }) {
            $0.email = nil
            $0.isAnonymous = true
            $0.passwordHash = nil
        }
        let refused = try await errorOf { try await f.update(#"{"password":"a much longer passphrase"}"#) }
        #expect(refused?.code == .validationFailed || refused?.status == 422)
        let answer = try await f.update(#"{"email":"ada@example.com","password":"a much longer passphrase"}"#)
        #expect(answer.email == "ada@example.com" && answer.isAnonymous == false)
        let stored = try await f.stored
        #expect(stored.isAnonymous == false && stored.emailConfirmedAt == f.time.now() && stored.passwordHash != nil)
    }

    /// A ban that lands between the caller's read and the write wins: the change is decided again
    /// on the fresh copy and refused.
    @Test func aBanLandingInFlightWins() async throws {
        let f = Fixture(store: { memory in BanningBeforeWriteStore(base: memory) })
        #expect(try await errorOf { try await f.update(#"{"data":{"team":"x"}}"#) } == AuthError.userBanned)
        #expect(try await f.stored.userMetadata["team"] == "core")
    }

    /// An account deletion lands only on the user as read: a change that lands in flight (here a
    /// ban) refuses it and leaves everything in place; without one, the user and its sessions go.
    @Test func anAccountDeletionLandsOnlyOnTheUserAsRead() async throws {
        let raced = Fixture(store: { memory in BanningBeforeWriteStore(base: memory) })
        #expect(try await errorOf { try await raced.account.deleteAccount(principal: raced.principal(), nonce: nil) }?.code == .conflict)
        #expect(try await raced.memory.user(id: raced.user.id) != nil && raced.sessionIDs.count == 3)

        let f = Fixture()
        try await f.account.deleteAccount(principal: f.principal(), nonce: nil)
        #expect(try await f.memory.user(id: f.user.id) == nil && f.sessionIDs.isEmpty)
        #expect(
            try await errorOf { try await f.account.deleteAccount(principal: f.principal(admin: true), nonce: nil) }?.code
                == .noAuthorization)
    }

    @Test(arguments: [(LogoutScope.global, 0), (.local, 2), (.others, 1)])
    func signOutEndsTheSessionsOfItsScope(_ scope: LogoutScope, _ left: Int) async throws {
        let f = Fixture()
        try await f.account.logout(principal: f.principal(), scope: scope)
        #expect(f.sessionIDs.count == left)
        #expect(f.sessionIDs.contains(f.sessions[0].id) == (scope == .others))
        let event = try #require(try await f.memory.auditEvents(AuditQuery(actions: [.logout])).events.first)
        #expect(event.details["scope"] == .string(scope.rawValue))
    }

    @Test func readingTheUserAnswersWithWhatWasReadWithIt() {
        let f = Fixture()
        #expect(f.account.user(for: f.principal()).id == f.user.id)
    }
}

extension InMemoryStore {
    /// Stores a session as a sign-in would, without the version check (test set-up).
    func createSessionNow(_ session: SessionRecord) throws {
        state.withLock { $0.sessions[session.id] = session }
    }
}

/// An account store that bans the user just before the first write of it: a ban that lands while
/// a change already read is in flight.
final class BanningBeforeWriteStore: UserAccountStore {
    let base: InMemoryStore
    private let first = FirstTime()

    init(base: InMemoryStore) { self.base = base }

    func user(id: UUID) async throws -> UserRecord? { try await base.user(id: id) }
    func user(email: String) async throws -> UserRecord? { try await base.user(email: email) }
    func user(phone: String) async throws -> UserRecord? { try await base.user(phone: phone) }
    func factors(userID: UUID) async throws -> [FactorRecord] { try await base.factors(userID: userID) }
    func redeem(_ rules: CodeRedemption, limits: [RateLimitCounter]) async throws -> RedemptionOutcome {
        try await base.redeem(rules, limits: limits)
    }
    func updateUser(_ user: UserRecord, revokingSessionsExcept keeping: UUID?, outbox: [OutboxRecord], audit: [AuditEvent]) async throws {
        try await base.updateUser(user, revokingSessionsExcept: keeping, outbox: outbox, audit: audit)
    }
    func adminUpdateUser(_ user: UserRecord, endSessions: Bool, audit: [AuditEvent]) async throws {
        try await base.adminUpdateUser(user, endSessions: endSessions, audit: audit)
    }
    func deleteSession(id: UUID, audit: [AuditEvent]) async throws { try await base.deleteSession(id: id, audit: audit) }
    func deleteSessions(userID: UUID, except keeping: UUID?, audit: [AuditEvent]) async throws {
        try await base.deleteSessions(userID: userID, except: keeping, audit: audit)
    }

    func updateUser(_ user: UserRecord) async throws {
        if first.now() { base.change(user.id) { $0.bannedUntil = Date.distantFuture } }
        try await base.updateUser(user)
    }
    func deleteAccount(userID: UUID, version: Int64, sessionID: UUID, audit: [AuditEvent]) async throws -> Bool {
        if first.now() { base.change(userID) { $0.bannedUntil = Date.distantFuture } }
        return try await base.deleteAccount(userID: userID, version: version, sessionID: sessionID, audit: audit)
    }
}
