import Foundation
import LatchkeyAPI
import Testing

@testable import LatchkeyCore

/// The operator's user endpoints against the in-memory store, a manual clock and seeded
/// randomness: creating by address, number or both (with an id, a password or an imported
/// bcrypt hash), changes applied at once, a ban or a new password ending every session, a
/// sign-in landing in flight, paging and look-ups, deletion and seeding — without HTTP or a
/// database.
@Suite struct AdminUsersTests {
    static let bcrypt = "$2a$10$" + String(repeating: "a", count: 53)

    struct Fixture {
        let memory = InMemoryStore()
        let time = ManualTimeSource()
        let admin: AdminUsers

        init(store: ((InMemoryStore) -> any AdminUserStore)? = nil) {
            var configuration = AuthConfiguration(siteURL: "http://localhost:3000")
            configuration.rateLimits = .unlimited
            let parts = TestCodeParts(
                memory: memory, time: time, sms: OneTimeCodesTests.RecordingSMS(), configuration: configuration, seed: 233)
            admin = AdminUsers(
                store: store?(memory) ?? memory,
                passwords: Passwords(
                    policy: PasswordPolicy(settings: configuration.password, blocklist: []), hasher: PasswordSignInTests.CountingHasher(),
                    decoyHash: "v1$decoy"),
                codes: parts.codes, records: parts.records, settings: AdminUsers.Settings(configuration))
        }

        func create(_ json: String) async throws -> User {
            try await admin.create(JSONDecoder().decode(AdminUserAttributes.self, from: Data(json.utf8)))
        }

        func update(_ id: UUID, _ json: String) async throws -> User {
            try await admin.update(id: id.uuidString, JSONDecoder().decode(AdminUserAttributes.self, from: Data(json.utf8)))
        }

        /// Adds a session of `id`, as a sign-in would.
        func signIn(_ id: UUID) throws {
            let now = time.now()
            try memory.createSessionNow(SessionRecord(id: UUID(), userID: id, amr: [], refreshSalt: [], createdAt: now, updatedAt: now))
        }
    }

    @Test func usersAreCreatedByAddressNumberOrBoth() async throws {
        let f = Fixture()
        let id = UUID()
        let both = try await f.create(
            #"{"id":"\#(id.uuidString)","email":"Ada@Example.com","phone":"+15551234567","password":"correct horse battery staple","email_confirm":true}"#
        )
        #expect(both.id == id && both.email == "ada@example.com" && both.phone == "15551234567" && both.emailConfirmedAt == f.time.now())
        #expect(both.phoneConfirmedAt == nil && both.appMetadata["providers"] == ["email", "phone"])
        let stored = try #require(try await f.memory.user(id: id))
        #expect(stored.passwordHash == "v1$correct horse battery staple")
        let imported = try await f.create(#"{"phone":"15557654321","password_hash":"\#(AdminUsersTests.bcrypt)","phone_confirm":true}"#)
        #expect(try await f.memory.user(id: imported.id)?.passwordHash == AdminUsersTests.bcrypt && imported.phoneConfirmedAt != nil)
        #expect(f.memory.outbox.isEmpty)
        #expect(try await errorOf { try await f.create(#"{"email":"ada@example.com"}"#) }?.code == .emailExists)
        #expect(try await errorOf { try await f.create(#"{"phone":"15557654321"}"#) }?.code == .phoneExists)
    }

    @Test(arguments: [
        (#"{}"#, ErrorCode.validationFailed),
        (#"{"email":"x@example.com","password":"a","password_hash":"b"}"#, .validationFailed),
        (#"{"email":"x@example.com","password_hash":"$1$not-bcrypt"}"#, .validationFailed),
        (#"{"email":"x@example.com","password":"short"}"#, .weakPassword),
        (#"{"email":"x@example.com","id":"not-a-uuid"}"#, .validationFailed),
        (#"{"email":"x@example.com","ban_duration":"forever"}"#, .validationFailed),
        (#"{"email":"x@example.com","role":""}"#, .validationFailed),
    ])
    func badAttributesStoreNothing(_ json: String, _ code: ErrorCode) async throws {
        let f = Fixture()
        #expect(try await errorOf { try await f.create(json) }?.code == code, "\(json)")
        #expect(try await f.memory.user(email: "x@example.com") == nil)
    }

    /// A ban ends every session; lifting it ends none; a new password ends them too; a change of
    /// address needs no confirmation and is recorded as the operator's.
    @Test func aBanOrANewPasswordEndsEverySession() async throws {
        let f = Fixture()
        let user = try await f.create(#"{"email":"ada@example.com"}"#)
        try f.signIn(user.id)
        try f.signIn(user.id)
        let banned = try await f.update(user.id, #"{"ban_duration":"24h"}"#)
        #expect(banned.bannedUntil == f.time.now().addingTimeInterval(86_400) && f.memory.sessions(userID: user.id).isEmpty)
        try f.signIn(user.id)
        _ = try await f.update(user.id, #"{"ban_duration":"none"}"#)
        #expect(f.memory.sessions(userID: user.id).count == 1)
        _ = try await f.update(user.id, #"{"password":"another long passphrase"}"#)
        #expect(f.memory.sessions(userID: user.id).isEmpty)
        let moved = try await f.update(user.id, #"{"email":"moved@example.com","user_metadata":{"team":"ops"}}"#)
        #expect(moved.email == "moved@example.com" && moved.userMetadata["team"] == "ops")
        let changed = try await f.memory.auditEvents(AuditQuery(actions: [.emailChanged])).events
        #expect(changed.first?.details["via"] == "admin" && changed.first?.details["from"] == "ada@example.com")
    }

    /// A sign-in that writes the user between the operator's read and write neither undoes the
    /// ban nor is undone by it: the ban lands on the fresh copy and ends the new session too.
    @Test func aSignInLandingInFlightKeepsTheBan() async throws {
        let f = Fixture { memory in SigningInFirstStore(base: memory) }
        let user = try await f.create(#"{"email":"ada@example.com"}"#)
        _ = try await f.update(user.id, #"{"ban_duration":"1h"}"#)
        let stored = try #require(try await f.memory.user(id: user.id))
        #expect(stored.bannedUntil != nil && stored.lastSignInAt != nil)
        #expect(f.memory.sessions(userID: user.id).isEmpty)
    }

    @Test func usersArePagedLookedUpAndDeleted() async throws {
        let f = Fixture()
        var ids: [UUID] = []
        for n in 0..<5 {
            ids.append(try await f.create(#"{"email":"user\#(n)@example.com"}"#).id)
            f.time.advance(by: 1)
        }
        let (page, total) = try await f.admin.list(page: 2, perPage: 2, emailFilter: nil)
        #expect(total == 5 && page.users.map(\.id) == [ids[2], ids[1]])
        #expect(try await f.admin.list(page: 1, perPage: 10, emailFilter: "user3").0.users.map(\.id) == [ids[3]])
        #expect(try await f.admin.user(lookup: "USER4@example.com").id == ids[4])
        #expect(try await f.admin.user(lookup: ids[0].uuidString).id == ids[0])
        #expect(try await errorOf { try await f.admin.user(lookup: "nobody@example.com") }?.code == .userNotFound)
        #expect(try await errorOf { try await f.admin.delete(id: ids[0].uuidString, softDelete: true) }?.code == .validationFailed)
        try await f.admin.delete(id: ids[0].uuidString)
        #expect(try await errorOf { try await f.admin.delete(id: ids[0].uuidString) }?.code == .userNotFound)
        #expect(try await f.admin.list(page: 1, perPage: 10, emailFilter: nil).total == 4)
    }

    @Test func seedingInsertsConfirmedUsersInBatches() async throws {
        let f = Fixture()
        var progress: [Int] = []
        try await f.admin.seed(count: 7, prefix: "load", batch: 3) { progress.append($0) }
        #expect(progress == [3, 6, 7])
        let seeded = try #require(try await f.memory.user(email: "load-6@example.com"))
        #expect(seeded.emailConfirmedAt != nil && seeded.passwordHash == nil)
        #expect(try await errorOf { try await f.admin.seed(count: 2, start: 6, prefix: "load") }?.code == .emailExists)
        #expect(try await f.memory.user(email: "load-7@example.com") == nil)
        #expect(try await errorOf { try await f.admin.seed(count: 0) }?.code == .validationFailed)
    }

    /// Signing a user out everywhere ends every session, the one of a sign-in that lands while
    /// the operator's write is in flight too (the write is made again on the copy it lands on).
    @Test func aSignOutEndsEverySessionASignInInFlightsToo() async throws {
        let f = Fixture(store: { SigningInFirstStore(base: $0) })
        let user = try await f.create(#"{"email":"ada@example.com","email_confirm":true}"#)
        let now = f.time.now()
        f.memory.add(SessionRecord(id: UUID(), userID: user.id, amr: [], refreshSalt: [], createdAt: now, updatedAt: now))
        #expect(try await f.admin.sessions(ofUser: user.id.uuidString).count == 1)
        var context = AuditContext.current
        context.operatorName = "service_role"
        try await AuditContext.$current.withValue(context) { try await f.admin.signOut(id: user.id.uuidString) }
        #expect(f.memory.sessions(userID: user.id).isEmpty)
        let events = try await f.memory.auditEvents(AuditQuery(actions: [.logout])).events
        #expect(events.count == 1 && events.first?.actorName == "service_role" && events.first?.details["scope"] == "global")
        await #expect(throws: AuthError.adminUserNotFound) { try await f.admin.signOut(id: UUID().uuidString) }
    }
}

/// An admin store where a sign-in writes the user (a new session and `last_sign_in_at`) just
/// before the operator's first write of it.
final class SigningInFirstStore: AdminUserStore {
    let base: InMemoryStore
    private let first = FirstTime()

    init(base: InMemoryStore) { self.base = base }

    func user(id: UUID) async throws -> UserRecord? { try await base.user(id: id) }
    func user(email: String) async throws -> UserRecord? { try await base.user(email: email) }
    func user(phone: String) async throws -> UserRecord? { try await base.user(phone: phone) }
    func listUsers(emailContains: String?, anonymous: Bool?, offset: Int, limit: Int) async throws -> (users: [UserRecord], total: Int) {
        try await base.listUsers(emailContains: emailContains, anonymous: anonymous, offset: offset, limit: limit)
    }
    func deleteUser(id: UUID, audit: [AuditEvent]) async throws -> Bool { try await base.deleteUser(id: id, audit: audit) }
    func insertUsers(_ users: [(user: UserRecord, identity: IdentityRecord)]) async throws { try await base.insertUsers(users) }
    func sessions(userID: UUID) async throws -> [SessionRecord] { base.sessions(userID: userID) }

    func adminUpdateUser(_ user: UserRecord, endSessions: Bool, audit: [AuditEvent]) async throws {
        if first.now(), var current = try await base.user(id: user.id) {
            current.lastSignInAt = user.updatedAt
            let session = SessionRecord(
                id: UUID(), userID: user.id, amr: [], refreshSalt: [], createdAt: user.updatedAt, updatedAt: user.updatedAt)
            try await base.createSession(session, user: current, audit: [])
        }
        try await base.adminUpdateUser(user, endSessions: endSessions, audit: audit)
    }
}
