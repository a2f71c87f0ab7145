import Crypto
import Foundation
import LatchkeyAPI
import LatchkeyWebAuthn
import Testing

@testable import LatchkeyCore

/// Passkey ceremonies below HTTP, against a virtual authenticator: registration and a
/// username-less sign-in, and GoTrue's refusals (disabled, anonymous, cap, used or expired
/// challenge, another user's handle, a replayed counter, a credential registered twice).
@Suite struct PasskeysTests {
    static let client = ClientInfo(ip: "192.0.2.20", userAgent: "test")

    /// A P-256 authenticator that answers as a platform passkey does (UP and UV set).
    struct Authenticator {
        let key = P256.Signing.PrivateKey()
        let credentialID: [UInt8] = (0..<32).map { _ in UInt8.random(in: 0...255) }
        /// UP and UV; a security key without a PIN sets UP (0x01) only.
        var flags: UInt8 = 0x05

        func authData(count: UInt32, credential: Bool) -> [UInt8] {
            var bytes = Array(SHA256.hash(data: Array("example.com".utf8)))
            bytes.append(flags | (credential ? 0x40 : 0))
            bytes += [UInt8(count >> 24), UInt8((count >> 16) & 0xff), UInt8((count >> 8) & 0xff), UInt8(count & 0xff)]
            if credential {
                let point = Array(key.publicKey.x963Representation)
                bytes += [UInt8](repeating: 0, count: 16) + [0, UInt8(credentialID.count)] + credentialID
                bytes += CBOREncoder.encode(
                    .map([
                        (.unsigned(1), .unsigned(2)), (.unsigned(3), .negative(-7)), (.negative(-1), .unsigned(1)),
                        (.negative(-2), .bytes(Array(point[1..<33]))), (.negative(-3), .bytes(Array(point[33..<65]))),
                    ]))
            }
            return bytes
        }

        static func clientData(_ type: String, _ options: PasskeyOptionsResponse) -> [UInt8] {
            let challenge = options.options.objectValue?["challenge"]?.stringValue ?? ""
            return Array(#"{"type":"\#(type)","challenge":"\#(challenge)","origin":"https://example.com"}"#.utf8)
        }

        func create(_ options: PasskeyOptionsResponse) -> PasskeyVerifyRequest {
            let object = CBOREncoder.encode(
                .map([
                    (.text("fmt"), .text("none")), (.text("attStmt"), .map([])),
                    (.text("authData"), .bytes(authData(count: 0, credential: true))),
                ]))
            return PasskeyVerifyRequest(
                challengeID: options.challengeID.uuidString,
                credential: PasskeyCredential(
                    id: Base64URL.encode(credentialID), rawId: Base64URL.encode(credentialID),
                    response: .init(
                        clientDataJSON: Base64URL.encode(Self.clientData("webauthn.create", options)),
                        attestationObject: Base64URL.encode(object), transports: ["internal"])))
        }

        func get(_ options: PasskeyOptionsResponse, count: UInt32, handle: String) throws -> PasskeyVerifyRequest {
            let client = Self.clientData("webauthn.get", options)
            let data = authData(count: count, credential: false)
            let signature = try key.signature(for: data + Array(SHA256.hash(data: client)))
            return PasskeyVerifyRequest(
                challengeID: options.challengeID.uuidString,
                credential: PasskeyCredential(
                    id: Base64URL.encode(credentialID), rawId: Base64URL.encode(credentialID),
                    response: .init(
                        clientDataJSON: Base64URL.encode(client), authenticatorData: Base64URL.encode(data),
                        signature: Base64URL.encode(Array(signature.derRepresentation)), userHandle: handle)))
        }
    }

    struct Fixture {
        let store = InMemoryStore()
        let time = ManualTimeSource()
        let passkeys: Passkeys
        let principal: Principal

        init(enabled: Bool = true, max: Int = 2, anonymous: Bool = false, verification: Bool = true, perIP: Int = 30) {
            let now = time.now()
            let user = UserRecord(
                id: UUID(), aud: "authenticated", role: "authenticated", email: anonymous ? nil : "ada@example.com", passwordHash: nil,
                emailConfirmedAt: now, appMetadata: [:], userMetadata: ["name": "Ada"], isAnonymous: anonymous, createdAt: now,
                updatedAt: now)
            store.add(user)
            principal = Principal(claims: AccessTokenClaims(sub: user.id.uuidString), user: user, session: nil, isAdmin: false)
            passkeys = Passkeys(
                store: store, limiter: RateLimiter(store: store, time: time),
                settings: Passkeys.Settings(
                    enabled: enabled, maxPerUser: max,
                    relyingParty: RelyingParty(
                        id: "example.com", origins: ["https://example.com"], requireUserVerification: verification),
                    displayName: "Example", perIP: RateLimit(count: perIP, period: 300)),
                records: TestSessionParts.records(accounts: store, time: time, random: SeededRandomSource(seed: 21)))
        }

        var handle: String { Passkeys.userHandle(principal.user.id) }
    }

    @Test func aPasskeyIsRegisteredThenSignsInWithoutAUsername() async throws {
        let f = Fixture()
        let device = Authenticator()
        let options = try await f.passkeys.registrationOptions(for: f.principal)
        let shown = try #require(options.options.objectValue)
        #expect(shown["user"]?.objectValue?["id"] == .string(f.handle) && shown["user"]?.objectValue?["displayName"] == "Ada")
        #expect(shown["rp"]?.objectValue?["id"] == "example.com" && options.expiresAt == Int(f.time.now().timeIntervalSince1970) + 300)
        let passkey = try await f.passkeys.register(device.create(options), principal: f.principal, client: Self.client)
        #expect(passkey.credentialID == device.credentialID && passkey.transports == ["internal"])
        let next = try await f.passkeys.registrationOptions(for: f.principal)
        #expect(next.options.objectValue?["excludeCredentials"]?.arrayValue?.count == 1)

        let signIn = try await f.passkeys.authenticationOptions(client: Self.client)
        let session = try await f.passkeys.signIn(try device.get(signIn, count: 1, handle: f.handle), client: Self.client)
        #expect(session.user.id == f.principal.user.id)
        #expect(f.store.sessions(userID: f.principal.user.id).first?.amr.map(\.method) == ["passkey"])
        #expect(try await f.store.passkeys(userID: f.principal.user.id).first?.signCount == 1)
        let actions = try await f.store.auditEvents(AuditQuery()).events.map(\.action)
        #expect(Set(actions) == [.passkeyCreated, .login])

        // The same challenge again: spent. A new one with the old counter: a cloned authenticator.
        await #expect(throws: AuthError(.webauthnChallengeNotFound, "Challenge not found or already used")) {
            try await f.passkeys.signIn(try device.get(signIn, count: 2, handle: f.handle), client: Self.client)
        }
        let again = try await f.passkeys.authenticationOptions(client: Self.client)
        await #expect(throws: Passkeys.verificationFailed) {
            try await f.passkeys.signIn(try device.get(again, count: 1, handle: f.handle), client: Self.client)
        }
        // Another user's handle for this credential.
        let third = try await f.passkeys.authenticationOptions(client: Self.client)
        await #expect(throws: Passkeys.verificationFailed) {
            try await f.passkeys.signIn(try device.get(third, count: 5, handle: Passkeys.userHandle(UUID())), client: Self.client)
        }
    }

    @Test func refusalsAnswerAsGoTrue() async throws {
        await #expect(throws: Passkeys.disabled) { try await Fixture(enabled: false).passkeys.authenticationOptions(client: Self.client) }
        let guest = Fixture(anonymous: true)
        var anonymousRefusal = AuthError(.noAuthorization, "Anonymous user not allowed to perform these actions")
        anonymousRefusal.status = 403
        await #expect(throws: anonymousRefusal) {
            try await guest.passkeys.registrationOptions(for: guest.principal)
        }
        let f = Fixture(max: 1)
        let device = Authenticator()
        let options = try await f.passkeys.registrationOptions(for: f.principal)
        _ = try await f.passkeys.register(device.create(options), principal: f.principal, client: Self.client)
        await #expect(throws: Passkeys.tooMany) { try await f.passkeys.registrationOptions(for: f.principal) }

        let g = Fixture()
        let expired = try await g.passkeys.registrationOptions(for: g.principal)
        g.time.advance(by: 301)
        await #expect(throws: AuthError(.webauthnChallengeExpired, "Challenge has expired")) {
            try await g.passkeys.register(device.create(expired), principal: g.principal, client: Self.client)
        }
        let fresh = try await g.passkeys.registrationOptions(for: g.principal)
        _ = try await g.passkeys.register(device.create(fresh), principal: g.principal, client: Self.client)
        let twice = try await g.passkeys.registrationOptions(for: g.principal)
        await #expect(throws: AuthError(.webauthnCredentialExists, "This credential is already registered")) {
            try await g.passkeys.register(device.create(twice), principal: g.principal, client: Self.client)
        }
        await #expect(throws: AuthError.validation("challenge_id must be a valid UUID")) {
            try await g.passkeys.register(
                PasskeyVerifyRequest(challengeID: "nope", credential: device.create(twice).credential), principal: g.principal,
                client: Self.client)
        }
    }

    @Test func aSignInAnswersOnlyForAConfirmedUnbannedUser() async throws {
        let f = Fixture()
        let device = Authenticator()
        _ = try await f.passkeys.register(
            device.create(try await f.passkeys.registrationOptions(for: f.principal)), principal: f.principal, client: Self.client)
        var user = f.principal.user
        user.emailConfirmedAt = nil
        f.store.add(user)
        var expected = AuthError.emailNotConfirmed
        expected.status = 403
        let first = try await f.passkeys.authenticationOptions(client: Self.client)
        await #expect(throws: expected) {
            try await f.passkeys.signIn(try device.get(first, count: 1, handle: f.handle), client: Self.client)
        }
        user.emailConfirmedAt = f.time.now()
        user.bannedUntil = f.time.now().addingTimeInterval(3600)
        f.store.add(user)
        expected = AuthError.userBanned
        expected.status = 403
        let second = try await f.passkeys.authenticationOptions(client: Self.client)
        await #expect(throws: expected) {
            try await f.passkeys.signIn(try device.get(second, count: 2, handle: f.handle), client: Self.client)
        }
        #expect(f.store.sessions(userID: user.id).isEmpty)
    }

    @Test func userVerificationIsRequiredUnlessPresenceIsAccepted() async throws {
        var key = Authenticator()
        key.flags = 0x01
        let strict = Fixture()
        let options = try await strict.passkeys.registrationOptions(for: strict.principal)
        #expect(options.options.objectValue?["authenticatorSelection"]?.objectValue?["userVerification"] == "required")
        await #expect(throws: Passkeys.verificationFailed) {
            try await strict.passkeys.register(key.create(options), principal: strict.principal, client: Self.client)
        }
        let lenient = Fixture(verification: false)
        let offered = try await lenient.passkeys.registrationOptions(for: lenient.principal)
        #expect(offered.options.objectValue?["authenticatorSelection"]?.objectValue?["userVerification"] == "preferred")
        _ = try await lenient.passkeys.register(key.create(offered), principal: lenient.principal, client: Self.client)
        let signIn = try await lenient.passkeys.authenticationOptions(client: Self.client)
        #expect(signIn.options.objectValue?["userVerification"] == "preferred")
        _ = try await lenient.passkeys.signIn(try key.get(signIn, count: 1, handle: lenient.handle), client: Self.client)
    }

    @Test func aUserWithASecondFactorManagesPasskeysAtAAL2() async throws {
        let f = Fixture()
        let now = f.time.now()
        f.store.add(
            FactorRecord(
                id: UUID(), userID: f.principal.user.id, friendlyName: nil, status: .verified, sealedSecret: "", createdAt: now,
                updatedAt: now))
        var expected = AuthError(.insufficientAAL, "AAL2 session is required to manage passkeys when MFA is enabled")
        expected.status = 403
        await #expect(throws: expected) { try await f.passkeys.registrationOptions(for: f.principal) }
        var stepped = f.principal
        stepped.session = SessionRecord(
            id: UUID(), userID: f.principal.user.id, aal: "aal2", amr: [], refreshSalt: [], createdAt: now, updatedAt: now)
        let device = Authenticator()
        let made = try await f.passkeys.register(
            device.create(try await f.passkeys.registrationOptions(for: stepped)), principal: stepped, client: Self.client)
        // Renaming does not need aal2 (as GoTrue); deleting does.
        _ = try await f.passkeys.rename(
            made.id.uuidString, PasskeyUpdateRequest(friendlyName: "Phone"), principal: f.principal, client: Self.client)
        await #expect(throws: expected) { try await f.passkeys.delete(made.id.uuidString, principal: f.principal, client: Self.client) }
        try await f.passkeys.delete(made.id.uuidString, principal: stepped, client: Self.client)
        #expect(try await f.passkeys.list(stepped).isEmpty)
    }

    @Test func ownersRenameAndDeleteTheirOwnOnly() async throws {
        let f = Fixture()
        let other = Fixture()
        let device = Authenticator()
        let made = try await f.passkeys.register(
            device.create(try await f.passkeys.registrationOptions(for: f.principal)), principal: f.principal, client: Self.client)
        #expect(made.friendlyName == "Passkey")
        let id = made.id.uuidString
        for name in ["", String(repeating: "é", count: 61)] {
            await #expect(throws: AuthError.self) {
                try await f.passkeys.rename(id, PasskeyUpdateRequest(friendlyName: name), principal: f.principal, client: Self.client)
            }
        }
        let renamed = try await f.passkeys.rename(
            id, PasskeyUpdateRequest(friendlyName: String(repeating: "é", count: 60)), principal: f.principal, client: Self.client)
        #expect(renamed.friendlyName?.count == 60)
        // Another user's store knows nothing of it; a bad id is the same 404.
        other.store.add(f.principal.user)
        for raw in ["not-a-uuid", UUID().uuidString] {
            await #expect(throws: Passkeys.notFound) { try await f.passkeys.delete(raw, principal: f.principal, client: Self.client) }
        }
        let listed = try await f.passkeys.list(f.principal)
        #expect(listed.map(\.id) == [made.id] && listed.first?.backupEligible == false)
        #expect(try await f.passkeys.passkeys(ofUser: f.principal.user.id.uuidString).count == 1)
        await #expect(throws: AuthError.adminUserNotFound) { try await f.passkeys.passkeys(ofUser: "x") }
        var context = AuditContext.current
        context.operatorName = "service_role"
        try await AuditContext.$current.withValue(context) {
            try await f.passkeys.delete(passkeyID: id, ofUser: f.principal.user.id.uuidString)
        }
        let events = try await f.store.auditEvents(AuditQuery()).events
        let deleted = try #require(events.first { $0.action == .passkeyDeleted })
        #expect(deleted.actorName == "service_role" && deleted.actorID == nil && deleted.details["user_id"] != nil)
        #expect(Set(events.map(\.action)) == [.passkeyCreated, .passkeyUpdated, .passkeyDeleted])
    }

    @Test func signInChallengesAreLimitedPerAddress() async throws {
        let f = Fixture(perIP: 2)
        _ = try await f.passkeys.authenticationOptions(client: Self.client)
        _ = try await f.passkeys.authenticationOptions(client: Self.client)
        await #expect(throws: AuthError.self) { try await f.passkeys.authenticationOptions(client: Self.client) }
        _ = try await f.passkeys.authenticationOptions(client: ClientInfo(ip: "192.0.2.21", userAgent: "test"))
    }

    /// A change to the user that lands while a passkey sign-in is in flight: a ban wins (403, no
    /// session, the counter where it was), a benign change is kept and the sign-in made again on it.
    @Test(arguments: [true, false])
    func aChangeLandingInFlightIsSeen(_ ban: Bool) async throws {
        let f = Fixture()
        let device = Authenticator()
        _ = try await f.passkeys.register(
            device.create(try await f.passkeys.registrationOptions(for: f.principal)), principal: f.principal, client: Self.client)
        let before = f.principal.user
        let until = f.time.now().addingTimeInterval(3600)
        let landing = LandingPasskeyStore(base: f.store) { store in
            var user = before
            if ban { user.bannedUntil = until } else { user.userMetadata["theme"] = "dark" }
            user.version += 1
            store.add(user)
        }
        let racing = Passkeys(
            store: landing, limiter: RateLimiter(store: f.store, time: f.time), settings: f.passkeys.settings, records: f.passkeys.records)
        let options = try await racing.authenticationOptions(client: Self.client)
        let attempt = { try await racing.signIn(try device.get(options, count: 1, handle: f.handle), client: Self.client) }
        if ban {
            var banned = AuthError.userBanned
            banned.status = 403
            await #expect(throws: banned) { try await attempt() }
            #expect(f.store.sessions(userID: f.principal.user.id).isEmpty)
            #expect(try await f.store.passkeys(userID: f.principal.user.id).first?.signCount == 0)
        } else {
            let session = try await attempt()
            #expect(session.user.userMetadata["theme"] == "dark" && f.store.sessions(userID: f.principal.user.id).count == 1)
        }
    }
}

/// A passkey store where another request changes the user just before the first sign-in write.
final class LandingPasskeyStore: PasskeyStore {
    let base: InMemoryStore
    let landing: @Sendable (InMemoryStore) -> Void
    private let first = FirstTime()

    init(base: InMemoryStore, landing: @escaping @Sendable (InMemoryStore) -> Void) {
        self.base = base
        self.landing = landing
    }

    func user(id: UUID) async throws -> UserRecord? { try await base.user(id: id) }
    func appendAudit(_ events: [AuditEvent]) async throws { try await base.appendAudit(events) }
    func factors(userID: UUID) async throws -> [FactorRecord] { try await base.factors(userID: userID) }
    func createWebAuthnChallenge(_ challenge: WebAuthnChallengeRecord) async throws { try await base.createWebAuthnChallenge(challenge) }
    func spendWebAuthnChallenge(id: UUID, ceremony: WebAuthnChallengeRecord.Ceremony, userID: UUID?) async throws
        -> WebAuthnChallengeRecord?
    {
        try await base.spendWebAuthnChallenge(id: id, ceremony: ceremony, userID: userID)
    }
    func passkeys(userID: UUID) async throws -> [PasskeyRecord] { try await base.passkeys(userID: userID) }
    func passkey(credentialID: [UInt8]) async throws -> PasskeyRecord? { try await base.passkey(credentialID: credentialID) }
    func createPasskey(_ passkey: PasskeyRecord, limit: Int, audit: [AuditEvent]) async throws -> Bool {
        try await base.createPasskey(passkey, limit: limit, audit: audit)
    }
    func renamePasskey(id: UUID, userID: UUID, name: String, at date: Date, audit: [AuditEvent]) async throws -> PasskeyRecord? {
        try await base.renamePasskey(id: id, userID: userID, name: name, at: date, audit: audit)
    }
    func deletePasskey(id: UUID, userID: UUID, audit: [AuditEvent]) async throws -> Bool {
        try await base.deletePasskey(id: id, userID: userID, audit: audit)
    }
    func recordPasskeySignIn(
        passkeyID: UUID, seenCount: UInt32, newCount: UInt32, backedUp: Bool, at date: Date, session: SessionRecord, user: UserRecord,
        audit: [AuditEvent]
    ) async throws -> Bool {
        if first.now() { landing(base) }
        return try await base.recordPasskeySignIn(
            passkeyID: passkeyID, seenCount: seenCount, newCount: newCount, backedUp: backedUp, at: date, session: session, user: user,
            audit: audit)
    }
}
