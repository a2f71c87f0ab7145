import Crypto
import Foundation
import LatchkeyAPI
import Logging
import Synchronization
import Testing

@testable import LatchkeyCore

/// The id-token grant against the in-memory store and reader, with a manual clock: who a token
/// signs in (a known identity, a confirmed owner of the address, or a new user), and that an
/// unverified address never takes an account over.
@Suite struct IDTokenSignInTests {
    static let client = ClientInfo(ip: "192.0.2.9", userAgent: "test")
    static let google = IdentityProvider(
        name: "google", enabled: true, issuers: .exact([IdentityProvider.googleIssuer]), claims: .google, clientIDs: ["g-web", "g-ios"])
    static let apple = IdentityProvider(
        name: "apple", enabled: true, issuers: .exact(IdentityProvider.appleIssuers), claims: .apple,
        clientIDs: ["com.example.web", "com.example.app"])

    struct Fixture {
        let store: InMemoryStore
        let time = ManualTimeSource()
        let reader = InMemoryIDTokenReader(random: SeededRandomSource(seed: 5))
        let signIn: IDTokenSignIn

        init(
            providers: [IdentityProvider] = [IDTokenSignInTests.google, IDTokenSignInTests.apple], disableSignup: Bool = false,
            allowUnverified: Bool = false, store wrap: ((InMemoryStore) -> any ExternalIdentityStore)? = nil,
            memory: InMemoryStore = InMemoryStore(), manualLinking: Bool = true
        ) {
            store = memory
            signIn = IDTokenSignIn(
                store: wrap?(memory) ?? memory, tokens: reader, limiter: RateLimiter(store: memory, time: time),
                settings: IDTokenSignIn.Settings(
                    providers: providers, tokenPerIP: RateLimit(count: 1000, period: 300), disableSignup: disableSignup,
                    allowUnverifiedEmailSignIns: allowUnverified, manualLinking: manualLinking),
                records: TestSessionParts.records(accounts: memory, time: time, random: SeededRandomSource(seed: 17)),
                logger: Logger(label: "test"))
        }

        /// Google's claims for `sub`, valid now.
        func claims(
            _ sub: String = "g-123", email: String? = "ada@example.com", verified: JSONValue = true, aud: JSONValue = "g-web",
            iss: String = IdentityProvider.googleIssuer, nonce: String? = nil
        ) -> [String: JSONValue] {
            let now = time.now().timeIntervalSince1970
            var claims: [String: JSONValue] = [
                "iss": .string(iss), "sub": .string(sub), "aud": aud, "iat": .number(now - 5), "exp": .number(now + 600),
                "email_verified": verified, "name": "Ada Lovelace",
            ]
            if let email { claims["email"] = .string(email) }
            if let nonce { claims["nonce"] = .string(SHA256.hash(data: Data(nonce.utf8)).hexString) }
            return claims
        }

        func attempt(
            _ claims: [String: JSONValue], provider: String? = "google", nonce: String? = nil, accessToken: String? = nil,
            issuer: String? = nil, data: [String: JSONValue]? = nil
        ) async throws -> Session {
            let token = reader.issue(claims, by: claims["iss"]?.stringValue ?? "")
            return try await signIn.signIn(
                IDTokenGrantRequest(provider: provider, idToken: token, accessToken: accessToken, nonce: nonce, issuer: issuer, data: data),
                client: IDTokenSignInTests.client)
        }

        /// A user signed up with a password at `email`, confirmed or not.
        /// A principal for `user` with a new session at `aal` (what a bearer token of it gives).
        func principal(_ user: UserRecord, aal: String = "aal1") -> Principal {
            var session = SessionRecord(
                id: UUID(), userID: user.id, amr: [], refreshSalt: [9], createdAt: time.now(), updatedAt: time.now())
            session.aal = aal
            store.add(session)
            return Principal(
                claims: AccessTokenClaims(sub: user.id.uuidString), user: user, session: session, isAdmin: false,
                factors: store.state.withLock { $0.factors(userID: user.id) })
        }

        func owner(_ email: String, confirmed: Bool) -> UserRecord {
            let now = time.now()
            let user = UserRecord(
                id: UUID(), aud: "authenticated", role: "authenticated", email: email, passwordHash: "hash",
                emailConfirmedAt: confirmed ? now : nil, appMetadata: ["provider": "email", "providers": ["email"]], userMetadata: [:],
                createdAt: now, updatedAt: now)
            store.add(user)
            return user
        }

        func actions() async throws -> [AuditAction] {
            try await store.auditEvents(AuditQuery(limit: 100)).events.reversed().map(\.action)
        }
    }

    @Test func aNewSubjectMakesAConfirmedUserWithItsIdentity() async throws {
        let f = Fixture()
        let session = try await f.attempt(f.claims())
        let user = try #require(try await f.store.user(id: session.user.id))
        #expect(user.email == "ada@example.com" && user.emailConfirmedAt == f.time.now() && user.passwordHash == nil)
        #expect(user.appMetadata == ["provider": "google", "providers": ["google"]])
        #expect(user.userMetadata["full_name"] == "Ada Lovelace" && user.userMetadata["email_verified"] == true)
        let identity = try #require(session.user.identities?.first)
        #expect(identity.provider == "google" && identity.id == "g-123" && identity.identityData["email"] == "ada@example.com")
        #expect(f.store.sessions(userID: user.id).first?.amr.map(\.method) == ["oauth"])
        #expect(try await f.actions() == [.userSignedUp])
    }

    @Test func theSameSubjectSignsInAgainWithItsDataRefreshed() async throws {
        let f = Fixture()
        let first = try await f.attempt(f.claims())
        f.time.advance(by: 60)
        var renamed = f.claims()
        renamed["name"] = "Ada King"
        let again = try await f.attempt(renamed)
        #expect(again.user.id == first.user.id && f.store.sessions(userID: first.user.id).count == 2)
        #expect(again.user.identities?.first?.identityData["name"] == "Ada King" && again.user.userMetadata["full_name"] == "Ada King")
        #expect(try await f.store.user(id: first.user.id)?.lastSignInAt == f.time.now())
        #expect(try await f.actions() == [.userSignedUp, .login])
    }

    @Test func aConfirmedOwnerOfAVouchedAddressIsLinked() async throws {
        let f = Fixture()
        let owner = f.owner("ada@example.com", confirmed: true)
        let session = try await f.attempt(f.claims())
        #expect(session.user.id == owner.id)
        let user = try #require(try await f.store.user(id: owner.id))
        #expect(
            user.passwordHash == "hash" && user.appMetadata["providers"] == ["email", "google"] && user.appMetadata["provider"] == "email")
        #expect(try await f.actions() == [.identityLinked, .login])
    }

    /// Someone who signed up with the address but never confirmed it does not get the
    /// provider's user: the new user goes without the address, which stays with its holder.
    @Test func anUnconfirmedHolderOfTheAddressIsNotTakenOver() async throws {
        let f = Fixture()
        let squatter = f.owner("ada@example.com", confirmed: false)
        let session = try await f.attempt(f.claims())
        #expect(session.user.id != squatter.id && session.user.email == "")
        #expect(session.user.identities?.first?.identityData["email"] == "ada@example.com")
        #expect(try await f.store.user(id: squatter.id)?.emailConfirmedAt == nil)
        #expect(f.store.sessions(userID: squatter.id).isEmpty)
    }

    @Test func anAddressTheProviderDoesNotVouchForIsRefusedAndStoresNothing() async throws {
        let f = Fixture()
        let owner = f.owner("ada@example.com", confirmed: true)
        await #expect(throws: IDTokenSignIn.needsVerification(IDTokenSignInTests.google)) {
            try await f.attempt(f.claims(verified: false))
        }
        await #expect(throws: IDTokenSignIn.needsVerification(IDTokenSignInTests.google)) {
            try await f.attempt(f.claims(email: nil))
        }
        #expect(f.store.sessionCount == 0 && f.store.anyUserID == owner.id)
        // With unverified sign-ins allowed, a new user; never the owner's account.
        let allowing = Fixture(allowUnverified: true, memory: f.store)
        let session = try await allowing.attempt(allowing.claims(verified: false))
        #expect(session.user.id != owner.id && session.user.email == "")
        let fresh = try await allowing.attempt(allowing.claims("g-9", email: "grace@example.com", verified: false))
        #expect(fresh.user.email == "grace@example.com" && fresh.user.emailConfirmedAt == nil)
    }

    @Test func withEmailOptionalAnAddresslessIdentitySignsIn() async throws {
        var google = Self.google
        google.emailOptional = true
        let f = Fixture(providers: [google])
        let session = try await f.attempt(f.claims(email: nil))
        #expect(session.user.email == "" && session.user.identities?.count == 1)
    }

    /// Apple vouches for its addresses (relay addresses included) whatever `email_verified`
    /// says, and its string flags are read as Go's `ParseBool`.
    @Test func appleAddressesAreVouchedFor() async throws {
        let f = Fixture()
        let now = f.time.now().timeIntervalSince1970
        let claims: [String: JSONValue] = [
            "iss": "https://appleid.apple.com", "sub": "001234.abc", "aud": "com.example.app", "iat": .number(now),
            "exp": .number(now + 600), "email": "x7k2@privaterelay.appleid.com", "email_verified": "false", "is_private_email": "true",
        ]
        let session = try await f.attempt(claims, provider: "apple", data: ["full_name": "Ada Lovelace"])
        #expect(session.user.email == "x7k2@privaterelay.appleid.com" && session.user.emailConfirmedAt != nil)
        #expect(session.user.userMetadata["full_name"] == "Ada Lovelace")
        let data = try #require(session.user.identities?.first?.identityData)
        #expect(data["custom_claims"] == ["is_private_email": true] && data["email_verified"] == true)
    }

    /// GoTrue's refusals, in its words; none stores a user or a session.
    @Test func refusalsAnswerAsGoTrueAndStoreNothing() async throws {
        let f = Fixture()
        let invalid = { (text: String) in IDTokenSignIn.invalidRequest(text) }
        func refusal(_ claims: [String: JSONValue], provider: String? = "google", nonce: String? = nil, issuer: String? = nil)
            async -> AuthError?
        {
            do {
                _ = try await f.attempt(claims, provider: provider, nonce: nonce, issuer: issuer)
                return nil
            } catch { return error as? AuthError }
        }
        let now = f.time.now().timeIntervalSince1970
        var expired = f.claims()
        expired["exp"] = .number(now - 31)
        var future = f.claims()
        future["iat"] = .number(now + 31)
        var noIAT = f.claims()
        noIAT["iat"] = nil
        var early = f.claims()
        early["nbf"] = .number(now + 120)
        var stringly = f.claims()
        stringly["email_verified"] = "true"
        let cases: [(AuthError?, AuthError)] = [
            (await refusal(f.claims(aud: "someone-else")), invalid("Unacceptable audience in id_token: [someone-else]")),
            (await refusal(f.claims(aud: ["a", "b"])), invalid("Unacceptable audience in id_token: [a b]")),
            (await refusal(expired), IDTokenSignIn.badIDToken),
            (await refusal(future), IDTokenSignIn.badIDToken),
            (await refusal(noIAT), IDTokenSignIn.badIDToken),
            (await refusal(early), IDTokenSignIn.badIDToken),
            (await refusal(stringly), IDTokenSignIn.badIDToken),
            (await refusal(f.claims(""), provider: "google"), invalid("Missing sub claim in id_token")),
            (await refusal(f.claims(), nonce: "raw"), invalid("Passed nonce and nonce in id_token should either both exist or not.")),
            (await refusal(f.claims(nonce: "raw")), invalid("Passed nonce and nonce in id_token should either both exist or not.")),
            (
                await refusal(f.claims(nonce: "raw"), nonce: "other"),
                AuthError(.validationFailed, "Nonces mismatch", oauthError: "invalid nonce")
            ),
            (await refusal(f.claims(), provider: "github"), AuthError(.validationFailed, "Custom OIDC provider \"github\" not allowed")),
            (await refusal(f.claims(), provider: "custom:acme"), AuthError(.validationFailed, "Custom provider \"acme\" not found")),
            (await refusal(f.claims(), provider: nil), invalid("provider or client_id and issuer required")),
            (
                await refusal(f.claims(), provider: "apple"),
                AuthError(.validationFailed, "Detected ID token issuer is not an Apple ID token issuer")
            ),
            (
                await refusal(
                    f.claims(iss: "https://appleid.apple.com", nonce: nil), provider: "apple", issuer: "https://account.apple.com"),
                AuthError(.validationFailed, "Provided issuer does not match ID token issuer")
            ),
            (await refusal(f.claims(iss: "https://evil.example")), IDTokenSignIn.badIDToken),
        ]
        for (got, expected) in cases { #expect(got == expected) }
        await #expect(throws: invalid("id_token required")) {
            try await f.signIn.signIn(IDTokenGrantRequest(provider: "google", idToken: ""), client: Self.client)
        }
        #expect(f.store.anyUserID == nil && f.store.sessionCount == 0)
        let failed = try await f.store.auditEvents(AuditQuery(actions: [.loginFailed], limit: 100)).events
        #expect(failed.count == 11 && failed.allSatisfy { $0.details["provider"] == "google" })
    }

    @Test func leewayAndTheRightNonceAndAccessTokenAreAccepted() async throws {
        let f = Fixture()
        var late = f.claims(nonce: "raw-nonce")
        late["exp"] = .number(f.time.now().timeIntervalSince1970 - 29)
        let accessToken = "ya29.access"
        late["at_hash"] = .string(IDTokenSignIn.atHash(accessToken, algorithm: "RS256") ?? "")
        _ = try await f.attempt(late, nonce: "raw-nonce", accessToken: accessToken)
        await #expect(throws: IDTokenSignIn.badIDToken) {
            try await f.attempt(late, nonce: "raw-nonce", accessToken: "another")
        }
        var skipping = Self.google
        skipping.skipNonceCheck = true
        let lenient = Fixture(providers: [skipping])
        _ = try await lenient.attempt(lenient.claims(nonce: "raw"))
    }

    @Test func aDisabledProviderAndRefusedSignaturesAreAnswered() async throws {
        var off = Self.google
        off.enabled = false
        let f = Fixture(providers: [off])
        await #expect(throws: AuthError(.providerDisabled, "Provider (issuer \"https://accounts.google.com\") is not enabled")) {
            try await f.attempt(f.claims())
        }
        let g = Fixture()
        let token = g.reader.issue(g.claims(), by: IdentityProvider.googleIssuer)
        g.reader.refuse(token, with: IDTokenRefusal(.signature, "forged"))
        await #expect(throws: IDTokenSignIn.badIDToken) {
            try await g.signIn.signIn(IDTokenGrantRequest(provider: "google", idToken: token), client: Self.client)
        }
        g.reader.refuse(token, with: IDTokenRefusal(.unreachable, "down"))
        await #expect(throws: IDTokenSignIn.providerUnreachable) {
            try await g.signIn.signIn(IDTokenGrantRequest(provider: "google", idToken: token), client: Self.client)
        }
        let reasons = try await g.store.auditEvents(AuditQuery(actions: [.loginFailed])).events.map { $0.details["reason"] }
        #expect(Set(reasons) == ["signature", "unreachable"])
    }

    @Test func signUpsOffStillLetKnownIdentitiesIn() async throws {
        let f = Fixture()
        let first = try await f.attempt(f.claims())
        let closed = Fixture(disableSignup: true, memory: f.store)
        #expect(try await closed.attempt(closed.claims()).user.id == first.user.id)
        await #expect(throws: AuthError.signupDisabled) { try await closed.attempt(closed.claims("g-new", email: "new@example.com")) }
    }

    /// A ban that lands while the sign-in is in flight wins: the write is refused on the changed
    /// copy, the decision is made again, and the ban answers.
    @Test func aBanThatLandsInFlightWins() async throws {
        let f = Fixture()
        let first = try await f.attempt(f.claims())
        let landing = Fixture(
            store: { memory in
                LandingFirstExternalStore(base: memory) { $0.change(first.user.id) { $0.bannedUntil = .distantFuture } }
            }, memory: f.store)
        await #expect(throws: AuthError.userBanned) { try await landing.attempt(landing.claims()) }
        #expect(f.store.sessions(userID: first.user.id).count == 1)
    }

    /// Two first sign-ins of one subject: the one that lands second finds the identity the first
    /// made (its insert refused by the unique subject) and signs in as that user: one user.
    @Test func racingFirstSignInsMakeOneUser() async throws {
        let memory = InMemoryStore()
        let racerID = UUID()
        let f = Fixture(
            store: { base in
                LandingFirstExternalStore(base: base) { store in
                    let now = Date(timeIntervalSince1970: 1_800_000_000)
                    store.add(
                        UserRecord(
                            id: racerID, aud: "authenticated", role: "authenticated", email: "ada@example.com", passwordHash: nil,
                            emailConfirmedAt: now, appMetadata: ["provider": "google", "providers": ["google"]], userMetadata: [:],
                            createdAt: now, updatedAt: now))
                    store.add(
                        IdentityRecord(
                            id: UUID(), userID: racerID, provider: "google", providerID: "g-123", identityData: [:],
                            email: "ada@example.com", createdAt: now, updatedAt: now))
                }
            }, memory: memory)
        let session = try await f.attempt(f.claims())
        #expect(session.user.id == racerID)
        #expect(try await memory.listUsers(emailContains: nil, anonymous: nil, offset: 0, limit: 10).total == 1)
        #expect(try await f.actions() == [.login])
    }
}

/// An external-identity store that lands another request's write just before the first
/// sign-in is applied.
final class LandingFirstExternalStore: ExternalIdentityStore {
    let base: InMemoryStore
    let landing: @Sendable (InMemoryStore) -> Void
    private let first = FirstTime()

    init(base: InMemoryStore, landing: @escaping @Sendable (InMemoryStore) -> Void) {
        self.base = base
        self.landing = landing
    }

    func user(id: UUID) async throws -> UserRecord? { try await base.user(id: id) }
    func user(email: String) async throws -> UserRecord? { try await base.user(email: email) }
    func appendAudit(_ events: [AuditEvent]) async throws { try await base.appendAudit(events) }
    func identity(provider: String, providerID: String) async throws -> (identity: IdentityRecord, user: UserRecord)? {
        try await base.identity(provider: provider, providerID: providerID)
    }

    func identities(userID: UUID) async throws -> [IdentityRecord] { try await base.identities(userID: userID) }
    func unlinkIdentity(id: UUID, user: UserRecord, held: SessionRecord?, audit: [AuditEvent], outbox: [OutboxRecord])
        async throws -> Bool
    {
        try await base.unlinkIdentity(id: id, user: user, held: held, audit: audit, outbox: outbox)
    }

    func account(userID: UUID, sessionID: UUID?) async throws -> AccountRecords {
        try await base.account(userID: userID, sessionID: sessionID)
    }

    func applyExternalSignIn(_ write: ExternalSignInWrite) async throws {
        if first.now() { landing(base) }
        try await base.applyExternalSignIn(write)
    }
}
