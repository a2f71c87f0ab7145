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

        func authData(count: UInt32, credential: Bool) -> [UInt8] {
            var bytes = Array(SHA256.hash(data: Array("example.com".utf8)))
            bytes.append(0x05 | (credential ? 0x40 : 0))
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

        init(enabled: Bool = true, max: Int = 2, anonymous: Bool = false) {
            let now = time.now()
            let user = UserRecord(
                id: UUID(), aud: "authenticated", role: "authenticated", email: anonymous ? nil : "ada@example.com", passwordHash: nil,
                emailConfirmedAt: now, appMetadata: [:], userMetadata: ["name": "Ada"], isAnonymous: anonymous, createdAt: now,
                updatedAt: now)
            store.add(user)
            principal = Principal(claims: AccessTokenClaims(sub: user.id.uuidString), user: user, session: nil, isAdmin: false)
            passkeys = Passkeys(
                store: store,
                settings: Passkeys.Settings(
                    enabled: enabled, maxPerUser: max, relyingParty: RelyingParty(id: "example.com", origins: ["https://example.com"]),
                    displayName: "Example"),
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

        let signIn = try await f.passkeys.authenticationOptions()
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
        let again = try await f.passkeys.authenticationOptions()
        await #expect(throws: Passkeys.verificationFailed) {
            try await f.passkeys.signIn(try device.get(again, count: 1, handle: f.handle), client: Self.client)
        }
        // Another user's handle for this credential.
        let third = try await f.passkeys.authenticationOptions()
        await #expect(throws: Passkeys.verificationFailed) {
            try await f.passkeys.signIn(try device.get(third, count: 5, handle: Passkeys.userHandle(UUID())), client: Self.client)
        }
    }

    @Test func refusalsAnswerAsGoTrue() async throws {
        await #expect(throws: Passkeys.disabled) { try await Fixture(enabled: false).passkeys.authenticationOptions() }
        let guest = Fixture(anonymous: true)
        await #expect(throws: AuthError(.noAuthorization, "Anonymous user not allowed to perform these actions")) {
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
}
