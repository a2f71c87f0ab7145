import Foundation
import LatchkeyAPI
import LatchkeyCore
import LatchkeyStore
import Testing

/// The contract of ``AdminUserStore``, held against the in-memory store, SQLite and PostgreSQL:
/// pages newest first with their total and filters, a deletion that takes what the user had
/// with it and says whether there was a user, and many users inserted all or nothing.
@Suite struct AdminUserStoreContractTests {
    typealias Store = AdminUserStore & PasswordSignInStore & AccountReading
    /// What a user can have, beside its sessions.
    typealias Holdings = Store & AuthCodeExchangeStore & FactorStore & DeviceKeyStore & KeyVaultStore & SignerBackupStore

    static func eachStore(_ body: (any Store) async throws -> Void) async throws {
        try await StoreContractTests.eachStore(memory: InMemoryStore() as any Store, body)
    }

    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// Users named `tag-N@example.com`, each a second newer than the one before.
    static func users(_ tag: String, count: Int, anonymousEvery: Int = 0) -> [(user: UserRecord, identity: IdentityRecord)] {
        (0..<count).map { n in
            var (user, identity) = StoreContractTests.user("\(tag)-\(n)@example.com", now: now.addingTimeInterval(Double(n)))
            if anonymousEvery > 0, n % anonymousEvery == 0 { user.isAnonymous = true }
            return (user, identity)
        }
    }

    @Test func pagesComeNewestFirstWithTheirTotal() async throws {
        try await Self.eachStore { store in
            let tag = "page\(UUID().uuidString.prefix(6).lowercased())"
            let batch = Self.users(tag, count: 5, anonymousEvery: 2)
            try await store.insertUsers(batch)
            let (page, total) = try await store.listUsers(emailContains: tag, anonymous: nil, offset: 1, limit: 2)
            #expect(total == 5 && page.map(\.id) == [batch[3].user.id, batch[2].user.id])
            let anonymous = try await store.listUsers(emailContains: tag, anonymous: true, offset: 0, limit: 10)
            #expect(anonymous.total == 3 && anonymous.users.allSatisfy(\.isAnonymous))
            let permanent = try await store.listUsers(emailContains: "\(tag)-3", anonymous: false, offset: 0, limit: 10)
            #expect(permanent.users.map(\.id) == [batch[3].user.id])
        }
    }

    @Test func aDeletionTakesTheSessionsAndSaysWhetherThereWasAUser() async throws {
        try await Self.eachStore { store in
            let pair = Self.users("gone\(UUID().uuidString.prefix(6).lowercased())", count: 1)[0]
            let user = pair.user
            try await store.insertUsers([pair])
            let session = SessionRecord(id: UUID(), userID: user.id, amr: [], refreshSalt: [1], createdAt: Self.now, updatedAt: Self.now)
            try await store.createSession(session, user: try #require(try await store.user(id: user.id)), audit: [])
            #expect(try await store.sessions(userID: user.id).map(\.id) == [session.id])
            #expect(try await store.deleteUser(id: user.id, audit: []))
            #expect(try await store.user(id: user.id) == nil)
            #expect(try await store.sessions(userID: user.id).isEmpty)
            #expect(try await store.account(userID: user.id, sessionID: session.id).session == nil)
            #expect(try await store.deleteUser(id: user.id, audit: []) == false)
        }
    }

    /// A deleted user's identities, factors, device keys, vaults, signer backup and opened links
    /// go with it, as the schema's `ON DELETE CASCADE` takes them (and the in-memory store
    /// follows): nothing is left for a later request to find.
    @Test func aDeletionTakesEverythingTheUserHad() async throws {
        try await StoreContractTests.eachStore(memory: InMemoryStore() as any Holdings) { store in
            let codeHash = OneTimeSecrets.linkHash(UUID().uuidString)
            let (user, _) = try await AuthCodeExchangeStoreContractTests.flow(in: store, codeHash: codeHash)
            #expect(try await store.createFactor(FactorStoreContractTests.factor(user.id), limit: 10, audit: []))
            #expect(try await store.createDeviceKey(DeviceKeyStoreContractTests.key(user.id, at: Self.now), limit: 10, audit: []))
            #expect(try await store.createVault(KeyVaultStoreContractTests.vault(user.id, at: Self.now), limit: 10))
            #expect(try await store.putSignerBackup(SignerBackupStoreContractTests.backup(user.id, key: "k", at: Self.now)))
            #expect(try await store.deleteUser(id: user.id, audit: []))
            let account = try await store.account(userID: user.id, sessionID: nil)
            #expect(account.user == nil && account.identities.isEmpty && account.factors.isEmpty)
            #expect(try await store.factors(userID: user.id).isEmpty)
            #expect(try await store.deviceKeys(userID: user.id).isEmpty)
            #expect(try await store.vaults(userID: user.id).isEmpty)
            #expect(try await store.signerBackup(userID: user.id) == nil)
            #expect(try await store.consumeFlowState(authCodeHash: codeHash, now: Self.now) == nil)
        }
    }

    @Test func manyUsersGoInTogetherOrNotAtAll() async throws {
        try await Self.eachStore { store in
            let tag = "bulk\(UUID().uuidString.prefix(6).lowercased())"
            let first = Self.users(tag, count: 3)
            try await store.insertUsers(first)
            // The second batch repeats the first's last address: none of it goes in.
            let second = Self.users("\(tag)b", count: 3) + [Self.users(tag, count: 3)[2]]
            do {
                try await store.insertUsers(second)
                Issue.record("a taken address was inserted")
            } catch let error as StoreError {
                #expect(error.isDuplicate)
            }
            #expect(try await store.listUsers(emailContains: "\(tag)b", anonymous: nil, offset: 0, limit: 10).total == 0)
            #expect(try await store.listUsers(emailContains: tag, anonymous: nil, offset: 0, limit: 10).total == 3)
        }
    }

    /// The account a token names, read whole: what PostgreSQL reads as one statement (its rows
    /// as JSON) is what the other stores read row by row, field for field, in the same order.
    @Test func anAccountIsReadWholeWithItsIdentitiesFactorsAndSession() async throws {
        try await StoreContractTests.eachStore(memory: InMemoryStore() as any Store & FactorStore) { store in
            let tag = "whole\(UUID().uuidString.prefix(6).lowercased())"
            let pairs = Self.users(tag, count: 2)
            try await store.insertUsers(pairs)
            let user = try #require(try await store.user(id: pairs[0].user.id))
            var factors = [
                FactorStoreContractTests.factor(user.id, name: "second \" \\ é", at: Self.now.addingTimeInterval(2)),
                FactorStoreContractTests.factor(user.id, name: nil, at: Self.now.addingTimeInterval(1)),
            ]
            factors[0].phone = "+15555550100"
            factors[0].lastUsedStep = 59_999_999
            for factor in factors { #expect(try await store.createFactor(factor, limit: 10, audit: [])) }
            var session = SessionRecord(
                id: UUID(), userID: user.id, aal: "aal2", amr: [.init(method: "otp", timestamp: 1_800_000_000)],
                refreshSalt: Array(0..<32), createdAt: Self.now, updatedAt: Self.now.addingTimeInterval(0.25))
            session.userAgent = "agent/1.0 \"quoted\""
            session.ip = "203.0.113.9"
            session.refreshCounter = 7
            try await store.createSession(session, user: user, audit: [])
            let other = try #require(try await store.user(id: pairs[1].user.id))
            let othersSession = SessionRecord(
                id: UUID(), userID: other.id, amr: [], refreshSalt: [1], createdAt: Self.now, updatedAt: Self.now)
            try await store.createSession(othersSession, user: other, audit: [])

            let current = try #require(try await store.user(id: user.id))
            let account = try await store.account(userID: user.id, sessionID: session.id)
            #expect(account.user == current)
            #expect(account.session == (try await store.sessions(userID: user.id)).first)
            #expect(account.session?.id == session.id && account.session?.userAgent == session.userAgent)
            #expect(account.identities.map(\.id) == [pairs[0].identity.id])
            #expect(account.identities.first?.identityData == pairs[0].identity.identityData)
            #expect(account.factors == (try await store.factors(userID: user.id)))
            #expect(account.factors.map(\.id) == [factors[1].id, factors[0].id])
            // Another user's session is answered as found; the authenticator refuses it.
            #expect(try await store.account(userID: user.id, sessionID: othersSession.id).session?.userID == other.id)
            let bare = try await store.account(userID: user.id, sessionID: nil)
            #expect(bare.user == current && bare.session == nil && bare.factors.count == 2)
            let missing = try await store.account(userID: UUID(), sessionID: session.id)
            #expect(missing.user == nil && missing.identities.isEmpty && missing.factors.isEmpty)
        }
    }
}
