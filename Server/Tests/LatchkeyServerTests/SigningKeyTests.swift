import Foundation
import HTTPTypes
import HummingbirdTesting
import JWTKit
import LatchkeyAPI
import LatchkeyCore
import LatchkeyJWT
import LatchkeyServer
import LatchkeyStore
import Testing

/// Signing keys in the store: published before they sign, verifying until the tokens they
/// signed have expired, imported from the data folder of an older install.
@Suite struct SigningKeyTests {
    /// The `kid` in a token's header.
    static func kid(_ token: String) throws -> String? {
        let header = try #require(token.split(separator: ".").first.flatMap { Base64URL.decode(String($0)) })
        return try JSONDecoder().decode([String: String].self, from: Data(header))["kid"]
    }

    static func published(_ client: any TestClientProtocol) async throws -> [String] {
        let body = try await client.send(.get, "/.well-known/jwks.json").decode([String: [[String: JSONValue]]].self)
        return (body["keys"] ?? []).compactMap { $0["kid"]?.stringValue }
    }

    static func asOperator<T: Sendable>(_ body: () async throws -> T) async rethrows -> T {
        try await AuditContext.$current.withValue(AuditContext(userAgent: "tests", operatorName: "cli:tests")) { try await body() }
    }

    @Test func aRotatedKeyIsPublishedFirstThenSignsAndTheOldOneRetires() async throws {
        let time = ManualTimeSource(Date())
        try await TestServer().run(time: time) { client, app async throws in
            let first = try #require(app.issuer.signingKeyID)
            let before = try await client.signUpConfirmed("keys@example.com", app: app)
            #expect(try Self.kid(before.accessToken) == first)
            #expect(try await Self.published(client) == [first])

            let rotated = try await Self.asOperator { try await app.admin.signingKeys.rotate(after: 900) }
            // Published at once; the old key still signs until the new one's time.
            #expect(try await Self.published(client) == [first, rotated.kid])
            let stillOld = try await client.send(
                .post, "/token?grant_type=password", json: #"{"email":"keys@example.com","password":"correct horse battery staple"}"#
            ).decode(Session.self)
            #expect(try Self.kid(stillOld.accessToken) == first)

            time.advance(by: 901)
            let renewed = try await client.send(
                .post, "/token?grant_type=refresh_token", json: #"{"refresh_token":"\#(stillOld.refreshToken)"}"#
            ).decode(Session.self)
            #expect(try Self.kid(renewed.accessToken) == rotated.kid)
            // Tokens the old key signed keep working until they expire.
            #expect(try await client.send(.get, "/user", bearer: stillOld.accessToken).status == .ok)

            // An hour (the token lifetime) and a minute later the old key is gone everywhere.
            time.advance(by: 3661)
            try await app.admin.signingKeys.reload()
            #expect(try await Self.published(client) == [rotated.kid])
            #expect(try await app.store.signingKeys().map(\.kid) == [rotated.kid])
            let log = try await AuditLogTests.log(client, try await AdminUserTests.serviceRole(app), query: "&action=key_rotated")
            #expect(log.first?.payload.actorUsername == "cli:tests" && log.first?.payload.traits["kid"] == .string(rotated.kid))
            #expect(log.first?.payload.logType == "key")
        }
    }

    @Test func aLeakedKeyIsRetiredAtOnceAndSessionsGoOn() async throws {
        try await TestServer().run { client, app async throws in
            let leaked = try #require(app.issuer.signingKeyID)
            let session = try await client.signUpConfirmed("leak@example.com", app: app)
            // The signing key cannot be retired: nothing would sign.
            await #expect(throws: AuthError.self) { try await Self.asOperator { try await app.admin.signingKeys.retire(kid: leaked) } }
            let replacement = try await Self.asOperator { try await app.admin.signingKeys.rotate(after: 0) }
            try await Self.asOperator { try await app.admin.signingKeys.retire(kid: leaked) }
            #expect(try await Self.published(client) == [replacement.kid])
            // Every token the leaked key signed is refused now; the session goes on by refresh.
            let refused = try await client.send(.get, "/user", bearer: session.accessToken)
            #expect(refused.status == .forbidden && refused.errorCode == "bad_jwt")
            let renewed = try await client.send(
                .post, "/token?grant_type=refresh_token", json: #"{"refresh_token":"\#(session.refreshToken)"}"#)
            #expect(renewed.status == .ok)
            #expect(try Self.kid(try renewed.decode(Session.self).accessToken) == replacement.kid)
            await #expect(throws: AuthError.self) { try await Self.asOperator { try await app.admin.signingKeys.retire(kid: "nope") } }
            let log = try await AuditLogTests.log(client, try await AdminUserTests.serviceRole(app), query: "&action=key_retired")
            #expect(log.count == 1 && log.first?.payload.traits["kid"] == .string(leaked))
        }
    }

    @Test func serviceTokensReachTheAdminAPIAndAreRecorded() async throws {
        let time = ManualTimeSource(Date())
        try await TestServer().run(time: time) { client, app async throws in
            let (token, expiresAt) = try await Self.asOperator {
                try await app.admin.signingKeys.serviceToken(role: "service_role", lifetime: 3600)
            }
            #expect(expiresAt == time.now().addingTimeInterval(3600))
            let claims = try #require(await app.issuer.verify(token))
            #expect(claims.role == "service_role" && claims.sub == nil && claims.exp != nil)
            #expect(try await client.send(.get, "/admin/users", bearer: token).status == .ok)
            let (forever, never) = try await Self.asOperator {
                try await app.admin.signingKeys.serviceToken(role: "service_role", lifetime: nil)
            }
            let foreverClaims = await app.issuer.verify(forever)
            #expect(never == nil && foreverClaims != nil && foreverClaims?.exp == nil)
            for (role, lifetime) in [("authenticated", 3600.0), ("service_role", 1), ("service_role", 1e12)] {
                await #expect(throws: AuthError.self) {
                    try await Self.asOperator { _ = try await app.admin.signingKeys.serviceToken(role: role, lifetime: lifetime) }
                }
            }
            let log = try await AuditLogTests.log(client, token, query: "&action=service_token_issued")
            #expect(log.count == 2 && log.allSatisfy { $0.payload.actorUsername == "cli:tests" && $0.payload.logType == "key" })
            let raw = String(decoding: try WireJSON.makeEncoder().encode(log), as: UTF8.self)
            #expect(!raw.contains(token) && !raw.contains(forever))
        }
    }

    @Test func importedKeysAndBadInput() async throws {
        let time = ManualTimeSource(Date())
        try await TestServer().run(time: time) { client, app async throws in
            let pem = ES256PrivateKey().pemRepresentation
            let imported = try await Self.asOperator { try await app.admin.signingKeys.importKey(pem: pem, after: 0) }
            #expect(app.issuer.signingKeyID == imported.kid)
            let session = try await client.signUpConfirmed("imported@example.com", app: app)
            #expect(try Self.kid(session.accessToken) == imported.kid)
            // The token verifies with the operator's own public key.
            let theirs = JWTKeyCollection()
            await theirs.add(ecdsa: try ES256PrivateKey(pem: pem).publicKey, kid: JWKIdentifier(string: imported.kid))
            #expect((try? await theirs.verify(session.accessToken, as: AccessTokenPayload.self)) != nil)

            await #expect { try await app.admin.signingKeys.importKey(pem: pem, after: 0) } throws: {
                ($0 as? AuthError)?.message == "This key is stored already"
            }
            await #expect { try await app.admin.signingKeys.importKey(pem: "-----BEGIN PRIVATE KEY-----\nnope\n", after: 0) } throws: {
                ($0 as? AuthError)?.code == .validationFailed
            }
            let rsa = "-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAK\n-----END RSA PRIVATE KEY-----\n"
            await #expect { try await app.admin.signingKeys.importKey(pem: rsa, after: 0) } throws: { ($0 as? AuthError) != nil }
            await #expect { try await app.admin.signingKeys.rotate(after: 31 * 86400) } throws: {
                ($0 as? AuthError)?.code == .validationFailed
            }
            // The private parts are sealed in the store.
            for key in try await app.store.signingKeys() { #expect(!key.sealedPrivateKey.contains("PRIVATE KEY")) }
        }
    }

    @Test func configuredKeysAreNotRotatedHere() async throws {
        try await TestServer(configure: { $0.jwtSecret = String(repeating: "s", count: 40) }).run { _, app async throws in
            #expect(!app.issuer.usesStoredKeys)
            await #expect { try await app.admin.signingKeys.rotate(after: 0) } throws: {
                ($0 as? AuthError)?.message.contains("GOTRUE_JWT_SECRET") == true
            }
            await #expect { try await app.admin.signingKeys.retire(kid: "any") } throws: {
                ($0 as? AuthError)?.message.contains("GOTRUE_JWT_SECRET") == true
            }
            #expect(try await app.store.signingKeys().isEmpty)
            // A service token is signed with the configured secret like any other token.
            let (token, _) = try await app.admin.signingKeys.serviceToken(role: "service_role", lifetime: 3600)
            #expect(await app.issuer.verify(token)?.role == "service_role")
        }
    }

    @Test func anInstanceWithAnotherServerSecretRefusesToStartAndChangesNothing() async throws {
        let server = TestServer()
        let kid = try await server.run { _, app async throws in try #require(app.issuer.signingKeyID) }
        let secretFile = server.directory + "/server-secret"
        let original = try Data(contentsOf: URL(fileURLWithPath: secretFile))
        try Data(Base64URL.encode(SecureRandom.bytes(32)).utf8).write(to: URL(fileURLWithPath: secretFile))
        await #expect {
            try await server.run { _, _ async throws in }
        } throws: { ($0 as? ConfigurationError)?.description.contains("not the one this database was started with") == true }
        // With its own secret back, the instance starts with the key it had.
        try original.write(to: URL(fileURLWithPath: secretFile))
        try await server.run { _, app async throws in
            #expect(app.issuer.signingKeyID == kid)
            #expect(try await app.store.signingKeys().map(\.kid) == [kid])
        }
    }

    /// In every JWT mode (here HS256, where no stored key would notice): the database keeps a
    /// verifier of the first secret, an instance given another one from the environment refuses
    /// to start, and one given the same one from the environment starts.
    @Test func theSecretFromTheEnvironmentMustMatchTheDatabasesInEveryJWTMode() async throws {
        let first = SecureRandom.bytes(32)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-test-\(UUID().uuidString)").path
        func server(_ secret: [UInt8]?) -> TestServer {
            TestServer(directory: directory) {
                $0.jwtSecret = "a-shared-jwt-secret-for-every-instance-0123456789"
                $0.serverSecret = secret
            }
        }
        try await server(first).run { _, app async throws in #expect(try await app.store.signingKeys().isEmpty) }
        #expect(!FileManager.default.fileExists(atPath: directory + "/server-secret"))
        for other in [SecureRandom.bytes(32), nil] {
            await #expect {
                try await server(other).run { _, _ async throws in }
            } throws: { ($0 as? ConfigurationError)?.description.contains("not the one this database was started with") == true }
        }
        try await server(first).run { client, _ async throws in #expect(try await client.send(.get, "/health").status == .ok) }
    }

    /// Issue #35: the configured secret, else the folder's, else one derived from the JWT secret
    /// (so that replicas given GoTrue's configuration agree), else a new one in the folder.
    @Test func theServerSecretIsConfiguredElseTheFoldersElseDerivedFromTheJWTSecret() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-test-\(UUID().uuidString)").path
        var configuration = ServerConfiguration(port: 0, dataDirectory: directory, hashingThreads: 1, auth: AuthConfiguration())
        configuration.jwtSecret = "a-gotrue-jwt-secret"
        let derived = try ServerSecretSource.resolve(configuration)
        #expect(derived.bytes == ServerSecret.derived(fromJWTSecret: "a-gotrue-jwt-secret"))
        #expect(derived.bytes.count == 32 && derived.origin.contains("derived from the JWT secret"))
        #expect(!FileManager.default.fileExists(atPath: directory + "/server-secret"))
        // Each JWT secret derives its own, and neither is the JWT secret's bytes.
        #expect(ServerSecret.derived(fromJWTSecret: "another") != derived.bytes)
        #expect(derived.bytes != Array("a-gotrue-jwt-secret".utf8).prefix(32).map { $0 })
        // The configured secret wins.
        let explicit = SecureRandom.bytes(32)
        configuration.serverSecret = explicit
        #expect(try ServerSecretSource.resolve(configuration).bytes == explicit)
        // Without a JWT secret a new one is made in the folder; from then on the folder's wins.
        configuration.serverSecret = nil
        configuration.jwtSecret = nil
        let made = try ServerSecretSource.resolve(configuration)
        #expect(made.origin.hasSuffix("(new)") && FileManager.default.fileExists(atPath: directory + "/server-secret"))
        configuration.jwtSecret = "a-gotrue-jwt-secret"
        #expect(try ServerSecretSource.resolve(configuration).bytes == made.bytes)
    }

    @Test(.enabled(if: !TestServer.usesPostgres)) func anOlderInstallsKeyMovesIntoTheStoreAndItsTokensStayValid() async throws {
        let server = TestServer()
        try FileManager.default.createDirectory(atPath: server.directory, withIntermediateDirectories: true)
        let pem = ES256PrivateKey().pemRepresentation
        try pem.write(toFile: server.directory + "/signing-key.pem", atomically: true, encoding: .utf8)
        let kid = String(OneTimeSecrets.linkHash(pem).prefix(16))
        // A token the older install signed.
        let old = JWTKeyCollection()
        await old.add(ecdsa: try ES256PrivateKey(pem: pem), kid: JWKIdentifier(string: kid))
        let session = try await server.run { client, app async throws in
            #expect(app.issuer.signingKeyID == kid)
            return try await client.signUpConfirmed("upgrade@example.com", app: app)
        }
        var claims = try #require(await old.verify(session.accessToken, as: AccessTokenPayload.self) as AccessTokenPayload?).claims
        claims.iat = Int(Date().timeIntervalSince1970)
        let signedByOld = try await old.sign(AccessTokenPayload(claims), kid: JWKIdentifier(string: kid))
        try await server.run { client, app async throws in
            #expect(try await client.send(.get, "/user", bearer: signedByOld).status == .ok)
            #expect(try await app.store.signingKeys().map(\.kid) == [kid])
        }
    }
}
