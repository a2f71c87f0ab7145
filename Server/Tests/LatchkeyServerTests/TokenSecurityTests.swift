import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import JWTKit
import LatchkeyAPI
import LatchkeyCore
import LatchkeyJWT
import LatchkeyServer
import LatchkeyStore
import NIOCore
import Testing

@Suite struct TokenSecurityTests {
    /// Signs `claims` with the server's own stored key, as an attacker who stole it could.
    static func signWithServerKey(_ claims: AccessTokenClaims, app: UseCases) async throws -> String {
        let stored = try #require(try await app.store.signingKeys().last)
        let pem = try app.admin.signingKeys.open(stored)
        let kid = stored.kid
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: try ES256PrivateKey(pem: pem), kid: JWKIdentifier(string: kid))
        return try await keys.sign(AccessTokenPayload(claims), kid: JWKIdentifier(string: kid))
    }

    @Test func forgedExpiredAndMisaddressedTokensAreRefused() async throws {
        let server = TestServer()
        try await server.run { client, app async throws in
            let session = try await client.signUpConfirmed("jwt@example.com", app: app)
            let now = Int(Date().timeIntervalSince1970)
            let sub = session.user.id.uuidString.lowercased()
            let payload = try #require(session.accessToken.split(separator: ".").dropFirst().first)
            var padded = String(payload).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while padded.count % 4 != 0 { padded += "=" }
            let claims = try JSONDecoder().decode(AccessTokenClaims.self, from: try #require(Data(base64Encoded: padded)))

            // HS256 "signed" with the public key (algorithm confusion).
            let jwks = try await client.send(.get, "/.well-known/jwks.json").text
            let kid = try #require(app.issuer.signingKeyID)
            let confused = JWTKeyCollection()
            await confused.add(hmac: HMACKey(from: Array(jwks.utf8)), digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
            let forged = try await confused.sign(AccessTokenPayload(claims), kid: JWKIdentifier(string: kid))
            #expect(try await client.send(.get, "/user", bearer: forged).errorCode == "bad_jwt")

            // A real signature, but expired, or for another audience.
            var expired = claims
            expired.exp = now - 10
            #expect(
                try await client.send(.get, "/user", bearer: try await Self.signWithServerKey(expired, app: app)).errorCode
                    == "bad_jwt")
            var elsewhere = claims
            elsewhere.aud = "another-app"
            #expect(
                try await client.send(.get, "/user", bearer: try await Self.signWithServerKey(elsewhere, app: app)).errorCode
                    == "bad_jwt")
            // A tampered payload with the original signature.
            let parts = session.accessToken.split(separator: ".")
            var admin = claims
            admin.role = "service_role"
            let tampered = parts[0] + "." + Base64URL.encode(try JSONEncoder().encode(admin)) + "." + parts[2]
            #expect(try await client.send(.get, "/user", bearer: String(tampered)).errorCode == "bad_jwt")
            // The genuine token still works.
            var fresh = claims
            fresh.sub = sub
            #expect(try await client.send(.get, "/user", bearer: try await Self.signWithServerKey(fresh, app: app)).status == .ok)
        }
    }

    @Test func serviceRoleTokensAreAdmins() async throws {
        let secret = "super-secret-jwt-token-with-at-least-32-characters-long"
        try await TestServer(configure: { $0.jwtSecret = secret }).run { client, app async throws in
            let session = try await client.signUpConfirmed("admin@example.com", app: app)
            let keys = JWTKeyCollection()
            await keys.add(hmac: HMACKey(from: Array(secret.utf8)), digestAlgorithm: .sha256)
            // GoTrue's bare service-role token: no sub, no exp, no aud.
            let bare = try await keys.sign(AccessTokenPayload(AccessTokenClaims(role: "service_role")))
            #expect(try await client.send(.get, "/user", bearer: bare).errorCode == "bad_jwt")
            let forUser = try await keys.sign(AccessTokenPayload(AccessTokenClaims(sub: session.user.id.uuidString, role: "service_role")))
            let updated = try await client.send(.put, "/user", json: #"{"app_metadata":{"plan":"pro"}}"#, bearer: forUser)
            #expect(updated.status == .ok)
            #expect(try updated.decode(User.self).appMetadata["plan"] == "pro")
            // A user token may not touch app_metadata.
            let denied = try await client.send(.put, "/user", json: #"{"app_metadata":{"plan":"free"}}"#, bearer: session.accessToken)
            #expect(denied.errorCode == "not_admin")
        }
    }

    @Test func jwkSetKeysSignAndVerify() async throws {
        let key = P256.Signing.PrivateKey()
        let point = Array(key.publicKey.x963Representation)  // 0x04 ‖ x ‖ y
        let jwk: [String: JSONValue] = [
            "kty": "EC", "crv": "P-256", "x": .string(Base64URL.encode(point[1..<33])), "y": .string(Base64URL.encode(point[33..<65])),
            "d": .string(Base64URL.encode(key.rawRepresentation)),
            "kid": "ops-key", "key_ops": ["sign", "verify"],
        ]
        try await TestServer(configure: { $0.jwtKeys = [jwk] }).run { client, app async throws in
            let session = try await client.signUpConfirmed("jwk@example.com", app: app)
            let header = try #require(session.accessToken.split(separator: ".").first)
            var padded = String(header)
            while padded.count % 4 != 0 { padded += "=" }
            let text = String(decoding: try #require(Data(base64Encoded: padded)), as: UTF8.self)
            #expect(text.contains("ops-key"))
            let published = try await client.send(.get, "/.well-known/jwks.json").text
            #expect(published.contains("ops-key"))
            #expect(!published.contains("\"d\""))
        }
    }

    @Test func aUsersTokenMustExpireAndNameThisServerAsItsIssuer() async throws {
        try await TestServer().run { client, app async throws in
            let session = try await client.signUpConfirmed("claims@example.com", app: app)
            let claims = try #require(await app.issuer.verify(session.accessToken))
            #expect(try await client.send(.get, "/user", bearer: try await app.issuer.sign(claims)).status == .ok)
            var forever = claims
            forever.exp = nil
            let noExpiry = try await client.send(.get, "/user", bearer: try await app.issuer.sign(forever))
            #expect(noExpiry.status == .forbidden && noExpiry.errorCode == "bad_jwt")
            var foreign = claims
            foreign.iss = "https://another-project.example.com/auth/v1"
            let otherIssuer = try await client.send(.get, "/user", bearer: try await app.issuer.sign(foreign))
            #expect(otherIssuer.status == .forbidden && otherIssuer.errorCode == "bad_jwt")
            var none = claims
            none.iss = nil
            #expect(try await client.send(.get, "/user", bearer: try await app.issuer.sign(none)).status == .forbidden)
        }
    }
}
