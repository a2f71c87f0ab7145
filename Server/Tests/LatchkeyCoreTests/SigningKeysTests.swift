import Foundation
import LatchkeyAPI
import Testing

@testable import LatchkeyCore

/// Key management against the in-memory store and an issuer that takes stored keys, with a
/// manual clock: the delay bounds, which key may be retired, the service token's rules, the
/// deletion of keys no token can carry, and the first key at start.
@Suite struct SigningKeysTests {
    struct Fixture {
        let time = ManualTimeSource()
        let store = InMemoryStore()
        let issuer: InMemoryTokenIssuer
        let keys: SigningKeys
        static let secret = [UInt8](repeating: 4, count: 32)

        init(storedKeys: Bool = true) {
            issuer = InMemoryTokenIssuer(time: time, random: SeededRandomSource(seed: 3), storedKeys: storedKeys)
            keys = SigningKeys(
                store: store, issuer: issuer, serverSecret: Self.secret,
                settings: SigningKeys.Settings(adminRoles: ["service_role", "supabase_admin"], issuerClaim: "https://auth.example.com"),
                time: time, random: SeededRandomSource(seed: 4))
        }

        /// The first key, as a start against an empty store makes it.
        func start() async throws -> String {
            let first = try await SigningKeys.stored(
                in: store, serverSecret: Self.secret, now: time.now(), firstPEM: { SigningKeyPEM.generate() },
                mismatch: { _ in AuthError.validation("mismatch") })
            try await keys.reload()
            return first[0].0.kid
        }
    }

    @Test func aRotatedKeyIsPublishedAtOnceAndSignsAfterItsDelay() async throws {
        let f = Fixture()
        let first = try await f.start()
        let rotated = try await f.keys.rotate(after: 900)
        #expect(f.issuer.publicJWKS.count == 2)
        #expect(f.issuer.signingKeyID == first)
        f.time.advance(by: 900)
        try await f.keys.reload()
        #expect(f.issuer.signingKeyID == rotated.kid)
        let event = try #require(f.store.events.last)
        #expect(event.action == .keyRotated && event.details["kid"] == .string(rotated.kid))
        #expect(event.details["signs_from"] == .string(WireJSON.formatDate(rotated.signsFrom)))
    }

    @Test(arguments: [-1, SigningKeys.maximumKeyDelay + 1])
    func delaysOutsideZeroToThirtyDaysAreRefused(_ delay: TimeInterval) async throws {
        let f = Fixture()
        _ = try await f.start()
        await #expect(throws: AuthError.validation("The delay must be from 0 seconds to 30 days")) {
            try await f.keys.rotate(after: delay)
        }
        #expect(try await f.store.signingKeys().count == 1)
    }

    @Test func anImportedKeyMustBeAP256PEMAndIsStoredOnce() async throws {
        let f = Fixture()
        _ = try await f.start()
        await #expect(throws: AuthError.self) { try await f.keys.importKey(pem: "-----BEGIN PRIVATE KEY-----\nnope\n", after: 0) }
        let pem = SigningKeyPEM.generate()
        let imported = try await f.keys.importKey(pem: pem, after: 0)
        #expect(try f.keys.open(imported) == pem)
        #expect(f.issuer.signingKeyID == imported.kid)
        await #expect(throws: AuthError.validation("This key is stored already")) { try await f.keys.importKey(pem: pem, after: 60) }
        #expect(f.store.events.map(\.action) == [.keyImported])
    }

    @Test func onlyAKeyThatDoesNotSignCanBeRetired() async throws {
        let f = Fixture()
        let leaked = try await f.start()
        await #expect(
            throws: AuthError.validation("Key \(leaked) signs now: rotate first (latchkey keys rotate --delay 0s), then retire it")
        ) {
            try await f.keys.retire(kid: leaked)
        }
        await #expect(throws: AuthError(.notFound, "No stored signing key has the id nope")) { try await f.keys.retire(kid: "nope") }
        let replacement = try await f.keys.rotate(after: 0)
        try await f.keys.retire(kid: leaked)
        #expect(try await f.store.signingKeys().map(\.kid) == [replacement.kid])
        #expect(f.issuer.publicJWKS.count == 1)
        #expect(f.store.events.map(\.action) == [.keyRotated, .keyRetired])
    }

    @Test func configuredKeysCannotBeChanged() async throws {
        let f = Fixture(storedKeys: false)
        let refusal = AuthError.validation("Tokens are signed with keys from GOTRUE_JWT_KEYS or GOTRUE_JWT_SECRET: change them there")
        await #expect(throws: refusal) { try await f.keys.rotate(after: 0) }
        await #expect(throws: refusal) { try await f.keys.importKey(pem: SigningKeyPEM.generate(), after: 0) }
        await #expect(throws: refusal) { try await f.keys.retire(kid: "any") }
        #expect(try await f.store.signingKeys().isEmpty && f.store.events.isEmpty)
        _ = try await f.keys.serviceToken(role: "service_role", lifetime: 3600)
    }

    @Test func aServiceTokenCarriesAnAdminRoleAndNoSubject() async throws {
        let f = Fixture()
        _ = try await f.start()
        let (token, expiresAt) = try await f.keys.serviceToken(role: "supabase_admin", lifetime: 3600)
        let claims = try #require(await f.issuer.verify(token))
        #expect(claims.role == "supabase_admin" && claims.sub == nil && claims.iss == "https://auth.example.com")
        #expect(expiresAt == f.time.now().addingTimeInterval(3600) && claims.exp == Int(f.time.now().timeIntervalSince1970) + 3600)
        let (forever, none) = try await f.keys.serviceToken(role: "service_role", lifetime: nil)
        let unlimited = await f.issuer.verify(forever)
        #expect(none == nil && unlimited != nil && unlimited?.exp == nil)
        let event = try #require(f.store.events.last)
        #expect(event.action == .serviceTokenIssued && event.details["expires_at"] == .null && event.details["role"] == "service_role")
        #expect(!event.details.values.contains(.string(forever)))
        for (role, lifetime) in [("authenticated", 3600.0), ("service_role", 59), ("service_role", GoDuration.longest + 1)] {
            await #expect(throws: AuthError.self) { try await f.keys.serviceToken(role: role, lifetime: lifetime) }
        }
        #expect(f.store.events.count == 2)
    }

    /// A key replaced by one that has signed for longer than a token lives is deleted at the
    /// next reload; the one before the current key stays while its tokens may be valid.
    @Test func reloadDeletesKeysNoTokenCanCarry() async throws {
        let f = Fixture()
        let first = try await f.start()
        let second = try await f.keys.rotate(after: 0)
        f.time.advance(by: f.issuer.retention - 1)
        try await f.keys.reload()
        #expect(try await f.store.signingKeys().map(\.kid) == [first, second.kid])
        f.time.advance(by: 1)
        try await f.keys.reload()
        #expect(try await f.store.signingKeys().map(\.kid) == [second.kid])
    }

    @Test func theFirstStartStoresOneKeyFromTheEpochAndAnotherSecretCannotOpenIt() async throws {
        let f = Fixture()
        let pem = SigningKeyPEM.generate()
        let keys = try await SigningKeys.stored(
            in: f.store, serverSecret: Fixture.secret, now: f.time.now(), firstPEM: { pem }, mismatch: { _ in AuthError.validation("x") })
        #expect(keys.count == 1 && keys[0].1 == pem && keys[0].0.signsFrom == Date(timeIntervalSince1970: 0))
        let again = try await SigningKeys.stored(
            in: f.store, serverSecret: Fixture.secret, now: f.time.now(), firstPEM: { SigningKeyPEM.generate() },
            mismatch: { _ in AuthError.validation("x") })
        #expect(again.map(\.0.kid) == keys.map(\.0.kid))
        await #expect(throws: AuthError.validation("mismatch \(keys[0].0.kid)")) {
            try await SigningKeys.stored(
                in: f.store, serverSecret: [UInt8](repeating: 5, count: 32), now: f.time.now(), firstPEM: { pem },
                mismatch: { AuthError.validation("mismatch \($0)") })
        }
    }
}
