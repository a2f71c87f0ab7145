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
}
