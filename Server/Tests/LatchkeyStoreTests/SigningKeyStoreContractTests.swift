import Foundation
import LatchkeyAPI
import LatchkeyCore
import LatchkeyStore
import Testing

/// The contract of ``SigningKeyStore``, held against the in-memory store, SQLite and PostgreSQL
/// (when `LATCHKEY_TEST_DATABASE_URL` names a server).
@Suite struct SigningKeyStoreContractTests {
    static func eachStore(_ body: (any SigningKeyStore) async throws -> Void) async throws {
        try await StoreContractTests.eachStore(memory: InMemoryStore() as any SigningKeyStore, body)
    }

    static func key(_ kid: String, signsFrom: TimeInterval, created: TimeInterval = 0) -> SigningKeyRecord {
        SigningKeyRecord(
            kid: kid, sealedPrivateKey: "sealed-\(kid)", publicJWK: ["kid": .string(kid), "kty": "EC"],
            createdAt: Date(timeIntervalSince1970: 1_800_000_000 + created), signsFrom: Date(timeIntervalSince1970: signsFrom))
    }

    static func event(_ action: AuditAction, _ kid: String) -> AuditEvent {
        AuditEvents(time: ManualTimeSource(), random: SystemRandomSource()).event(
            action, userID: nil, name: nil, details: ["kid": .string(kid)])
    }

    /// How many `action` events `store` has recorded in its audit log.
    static func recorded(_ action: AuditAction, in store: any SigningKeyStore) async throws -> Int {
        let log = try #require(store as? any AuditLogStore)
        return try await log.auditEvents(AuditQuery(actions: [action])).total
    }

    /// Keys come back in the order they sign (then the order they were made), whole.
    @Test func keysAreListedInTheOrderTheySign() async throws {
        try await Self.eachStore { store in
            let keys: [SigningKeyRecord] = [
                Self.key("c", signsFrom: 1_800_000_900), Self.key("a", signsFrom: 0), Self.key("b", signsFrom: 1_800_000_900, created: -5),
            ]
            for key in keys {
                let added = try await store.addSigningKey(key, audit: [])
                #expect(added)
            }
            #expect(try await store.signingKeys() == [keys[1], keys[2], keys[0]])
        }
    }

    /// A second key with a stored id is refused and records nothing; an added key records its
    /// events in the same write.
    @Test func aKidIsStoredOnce() async throws {
        try await Self.eachStore { store in
            let before = try await Self.recorded(.keyImported, in: store)
            #expect(try await store.addSigningKey(Self.key("k", signsFrom: 0), audit: [Self.event(.keyImported, "k")]))
            var other = Self.key("k", signsFrom: 60)
            other.sealedPrivateKey = "another"
            #expect(try await !store.addSigningKey(other, audit: [Self.event(.keyImported, "k")]))
            #expect(try await store.signingKeys().map(\.sealedPrivateKey) == ["sealed-k"])
            #expect(try await Self.recorded(.keyImported, in: store) == before + 1)
        }
    }

    /// Deleting answers how many went, and records its events only when one did.
    @Test func deletingCountsAndAuditsOnlyWhatWent() async throws {
        try await Self.eachStore { store in
            for kid in ["x", "y", "z"] { _ = try await store.addSigningKey(Self.key(kid, signsFrom: 0), audit: []) }
            let before = try await Self.recorded(.keyRetired, in: store)
            #expect(try await store.deleteSigningKeys(kids: ["nope"], audit: [Self.event(.keyRetired, "nope")]) == 0)
            #expect(try await store.deleteSigningKeys(kids: [], audit: [Self.event(.keyRetired, "none")]) == 0)
            #expect(try await store.deleteSigningKeys(kids: ["x", "z", "nope"], audit: [Self.event(.keyRetired, "x")]) == 2)
            #expect(try await store.signingKeys().map(\.kid) == ["y"])
            #expect(try await Self.recorded(.keyRetired, in: store) == before + 1)
        }
    }

    /// Instances racing to store the first key agree on one.
    @Test func racingFirstKeysAgreeOnOne() async throws {
        try await Self.eachStore { store in
            let added = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<6 { group.addTask { try await store.addSigningKey(Self.key("first", signsFrom: 0), audit: []) } }
                return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
            }
            #expect(added == 1)
            #expect(try await store.signingKeys().count == 1)
        }
    }
}
