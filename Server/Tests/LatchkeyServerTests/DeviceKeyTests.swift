import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import JWTKit
import LatchkeyAPI
import LatchkeyCore
import LatchkeyServer
import LatchkeyStore
import Testing

/// A device as the tests play it: a P-256 key pair that signs RFC 7523 assertions.
struct TestDevice {
    let key = P256.Signing.PrivateKey()

    /// The public key as the JWK `POST /device-keys` takes.
    var jwk: String {
        let raw = key.publicKey.rawRepresentation
        return #"{"kty":"EC","crv":"P-256","x":"\#(Base64URL.encode(raw.prefix(32)))","y":"\#(Base64URL.encode(raw.suffix(32)))"}"#
    }

    struct Claims: JWTPayload {
        var iss: String
        var sub: String
        var aud: String
        var exp: Int
        var iat: Int
        var jti: String?
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// An assertion; by default one the server at `audience` accepts.
    func assertion(
        keyID: String, userID: String, audience: String = "http://127.0.0.1:9999/token", expiresIn: TimeInterval = 120,
        jti: String? = UUID().uuidString, issuedAgo: TimeInterval = 0
    ) async throws -> String {
        let now = Date()
        let claims = Claims(
            iss: keyID, sub: userID, aud: audience, exp: Int(now.addingTimeInterval(expiresIn).timeIntervalSince1970),
            iat: Int(now.addingTimeInterval(-issuedAgo).timeIntervalSince1970), jti: jti)
        let keys = await JWTKeyCollection().add(ecdsa: try ES256PrivateKey(pem: key.pemRepresentation))
        return try await keys.sign(claims)
    }

    /// An assertion naming a registered key's id (lower case, as the server writes ids).
    func assertion(
        keyID: UUID, userID: String, audience: String = "http://127.0.0.1:9999/token", expiresIn: TimeInterval = 120,
        jti: String? = UUID().uuidString, issuedAgo: TimeInterval = 0
    ) async throws -> String {
        try await assertion(
            keyID: keyID.uuidString.lowercased(), userID: userID, audience: audience, expiresIn: expiresIn, jti: jti, issuedAgo: issuedAgo)
    }
}

extension TestClientProtocol {
    /// Registers `device` for the session's user and returns the key.
    func register(_ device: TestDevice, name: String = "Ada's iPhone", session: Session) async throws -> DeviceKey {
        let response = try await send(
            .post, "/device-keys", json: #"{"name":"\#(name)","public_key":\#(device.jwk)}"#, bearer: session.accessToken)
        #expect(response.status == .created)
        return try response.decode(DeviceKey.self)
    }

    /// `POST /token` with the jwt-bearer grant.
    func deviceSignIn(_ assertion: String) async throws -> TestResponse {
        try await send(
            .post, "/token?grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer", json: #"{"assertion":"\#(assertion)"}"#)
    }
}

let errorCodeHeader = HTTPField.Name("x-sb-error-code")!

@Suite struct DeviceKeyTests {
    @Test func aRegisteredKeySignsInOncePerAssertionUntilRevoked() async throws {
        try await TestServer().run { client, app async throws in
            let session = try await client.signUpConfirmed("device@example.com", app: app)
            let device = TestDevice()
            let key = try await client.register(device, session: session)
            #expect(key.name == "Ada's iPhone" && key.lastUsedAt == nil)
            let userID = session.user.id.uuidString.lowercased()

            let assertion = try await device.assertion(keyID: key.id, userID: userID)
            let signedIn = try await client.deviceSignIn(assertion)
            #expect(signedIn.status == .ok)
            #expect(signedIn.headers[.cacheControl] == "no-store")
            let deviceSession = try signedIn.decode(Session.self)
            #expect(deviceSession.user.id == session.user.id)
            let claims = try #require(await app.issuer.verify(deviceSession.accessToken))
            #expect(claims.amr?.map(\.method) == ["device_key"])
            let logins = try await AuditLogTests.log(client, try await AdminUserTests.serviceRole(app), query: "&action=login")
            #expect(logins.first?.payload.traits["method"] == "device_key")
            // The session is a real one: it reads the user and refreshes.
            #expect(try await client.send(.get, "/user", bearer: deviceSession.accessToken).status == .ok)
            let refreshed = try await client.send(
                .post, "/token?grant_type=refresh_token", json: #"{"refresh_token":"\#(deviceSession.refreshToken)"}"#)
            #expect(refreshed.status == .ok)

            // The same assertion again is a replay.
            let replay = try await client.deviceSignIn(assertion)
            #expect(replay.status == .badRequest && replay.oauthError == "invalid_grant")

            let listed = try await client.send(.get, "/device-keys", bearer: session.accessToken).decode(DeviceKeyList.self)
            #expect(listed.deviceKeys.map(\.id) == [key.id])
            #expect(listed.deviceKeys.first?.lastUsedAt != nil)

            #expect(try await client.send(.delete, "/device-keys/\(key.id)", bearer: session.accessToken).status == .noContent)
            let afterRevoke = try await client.deviceSignIn(try await device.assertion(keyID: key.id, userID: userID))
            #expect(afterRevoke.oauthError == "invalid_grant")
            #expect(afterRevoke.headers[errorCodeHeader] == "device_key_not_found")
            #expect(replay.headers[errorCodeHeader] != "device_key_not_found")
            #expect(try await client.send(.get, "/device-keys", bearer: session.accessToken).decode(DeviceKeyList.self).deviceKeys.isEmpty)
            // Revoked twice: the key is gone.
            #expect(try await client.send(.delete, "/device-keys/\(key.id)", bearer: session.accessToken).status == .notFound)
        }
    }

    @Test func oneAssertionSentManyTimesAtOnceYieldsOneSession() async throws {
        try await TestServer().run { client, app async throws in
            let session = try await client.signUpConfirmed("race@example.com", app: app)
            let device = TestDevice()
            let key = try await client.register(device, session: session)
            let assertion = try await device.assertion(keyID: key.id, userID: session.user.id.uuidString.lowercased())
            let statuses = try await client.concurrently(
                8, .post, "/token?grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer", json: #"{"assertion":"\#(assertion)"}"#
            ).map(\.status)
            #expect(statuses.filter { $0 == .ok }.count == 1)
            #expect(statuses.filter { $0 == .badRequest }.count == 7)
        }
    }

    @Test func malformedMisaddressedAndForeignAssertionsAreRefused() async throws {
        try await TestServer().run { client, app async throws in
            let session = try await client.signUpConfirmed("strict@example.com", app: app)
            let other = try await client.signUpConfirmed("other@example.com", app: app)
            let device = TestDevice()
            let key = try await client.register(device, session: session)
            let userID = session.user.id.uuidString.lowercased()

            var refused: [String: TestResponse] = [:]
            refused["expired"] = try await client.deviceSignIn(try await device.assertion(keyID: key.id, userID: userID, expiresIn: -5))
            refused["too far ahead"] = try await client.deviceSignIn(
                try await device.assertion(keyID: key.id, userID: userID, expiresIn: 3600))
            refused["wrong audience"] = try await client.deviceSignIn(
                try await device.assertion(keyID: key.id, userID: userID, audience: "https://elsewhere.example/token"))
            refused["another user"] = try await client.deviceSignIn(
                try await device.assertion(keyID: key.id, userID: other.user.id.uuidString.lowercased()))
            refused["unknown key"] = try await client.deviceSignIn(
                try await device.assertion(keyID: UUID().uuidString.lowercased(), userID: userID))
            refused["not a key id"] = try await client.deviceSignIn(try await device.assertion(keyID: "nope", userID: userID))
            refused["signed by another key"] = try await client.deviceSignIn(
                try await TestDevice().assertion(keyID: key.id, userID: userID))
            refused["no jti"] = try await client.deviceSignIn(try await device.assertion(keyID: key.id, userID: userID, jti: nil))
            refused["issued long ago"] = try await client.deviceSignIn(
                try await device.assertion(keyID: key.id, userID: userID, issuedAgo: 3600))
            let hmac = await JWTKeyCollection().add(hmac: HMACKey(from: Array(device.jwk.utf8)), digestAlgorithm: .sha256)
            refused["HS256 with the public key"] = try await client.deviceSignIn(
                try await hmac.sign(
                    TestDevice.Claims(
                        iss: key.id.uuidString.lowercased(), sub: userID, aud: "http://127.0.0.1:9999/token",
                        exp: Int(Date().timeIntervalSince1970) + 60,
                        iat: Int(Date().timeIntervalSince1970), jti: UUID().uuidString)))
            refused["garbage"] = try await client.deviceSignIn("not.a.jwt")
            refused["huge"] = try await client.deviceSignIn(String(repeating: "a", count: 9000))
            let good = try await device.assertion(keyID: key.id, userID: userID)
            let parts = good.split(separator: ".")
            refused["tampered"] = try await client.deviceSignIn(
                parts[0] + "." + Base64URL.encode(Data(#"{"iss":"\#(key.id)","sub":"\#(other.user.id)"}"#.utf8)) + "." + parts[2])
            #expect(refused["unknown key"]?.headers[errorCodeHeader] == "device_key_not_found")
            for (name, response) in refused {
                #expect(response.status == .badRequest, "\(name)")
                #expect(response.oauthError == "invalid_grant", "\(name): \(response.text)")
            }
            let missing = try await client.send(
                .post, "/token?grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer", json: "{}")
            #expect(missing.status == .badRequest && missing.oauthError == "invalid_request")
            // None of them used up the key: a good assertion still signs in.
            #expect(try await client.deviceSignIn(good).status == .ok)
        }
    }

    @Test func aPasswordChangeOrAGlobalSignOutEndsEveryKey() async throws {
        try await TestServer().run { client, app async throws in
            let session = try await client.signUpConfirmed("reset@example.com", app: app)
            let userID = session.user.id.uuidString.lowercased()
            let phone = TestDevice()
            let laptop = TestDevice()
            let phoneKey = try await client.register(phone, session: session)
            let laptopKey = try await client.register(laptop, name: "Laptop", session: session)

            let changed = try await client.send(
                .put, "/user", json: #"{"password":"a brand new passphrase"}"#, bearer: session.accessToken)
            #expect(changed.status == .ok)
            #expect(
                try await client.deviceSignIn(try await phone.assertion(keyID: phoneKey.id, userID: userID)).oauthError == "invalid_grant")
            #expect(
                try await client.deviceSignIn(try await laptop.assertion(keyID: laptopKey.id, userID: userID)).oauthError
                    == "invalid_grant")
            #expect(try await client.send(.get, "/device-keys", bearer: session.accessToken).decode(DeviceKeyList.self).deviceKeys.isEmpty)

            // Enrolled again, then a global sign-out from any session.
            let again = try await client.register(phone, session: session)
            let viaKey = try await client.deviceSignIn(try await phone.assertion(keyID: again.id, userID: userID)).decode(Session.self)
            #expect(try await client.send(.post, "/logout?scope=global", bearer: viaKey.accessToken).status == .noContent)
            #expect(try await client.deviceSignIn(try await phone.assertion(keyID: again.id, userID: userID)).oauthError == "invalid_grant")
        }
    }

    @Test func registrationRefusesWhatIsNotAPublicP256Key() async throws {
        try await TestServer().run { client, app async throws in
            let session = try await client.signUpConfirmed("jwk@example.com", app: app)
            let other = try await client.signUpConfirmed("jwk2@example.com", app: app)
            let device = TestDevice()
            let raw = device.key.publicKey.rawRepresentation
            let x = Base64URL.encode(raw.prefix(32))
            let y = Base64URL.encode(raw.suffix(32))
            let offCurve = Base64URL.encode(Data(repeating: 7, count: 32))
            let bad = [
                #"{"name":"a"}"#,
                #"{"name":"a","public_key":"pem"}"#,
                #"{"name":"a","public_key":{"kty":"RSA","n":"x","e":"AQAB"}}"#,
                #"{"name":"a","public_key":{"kty":"EC","crv":"P-384","x":"\#(x)","y":"\#(y)"}}"#,
                #"{"name":"a","public_key":{"kty":"EC","crv":"P-256","x":"\#(x)"}}"#,
                #"{"name":"a","public_key":{"kty":"EC","crv":"P-256","x":"\#(x)","y":"\#(offCurve)"}}"#,
                #"{"name":"a","public_key":{"kty":"EC","crv":"P-256","x":"!!","y":"\#(y)"}}"#,
                #"{"name":"a","public_key":{"kty":"EC","crv":"P-256","x":"\#(x)","y":"\#(y)","d":"\#(x)"}}"#,
                #"{"name":"","public_key":\#(device.jwk)}"#,
                #"{"name":"\#(String(repeating: "n", count: 101))","public_key":\#(device.jwk)}"#,
                #"{"name":7,"public_key":\#(device.jwk)}"#,
                "[]",
                "{oops",
            ]
            for body in bad {
                let response = try await client.send(.post, "/device-keys", json: body, bearer: session.accessToken)
                // A point off the curve matches the API document's shape: 422, not 400.
                let expected: HTTPResponse.Status = body.contains(offCurve) ? .unprocessableContent : .badRequest
                #expect(response.status == expected, "\(body): \(response.text)")
                #expect(response.errorCode == "validation_failed" || response.errorCode == "bad_json", "\(body): \(response.text)")
            }
            let unsigned = try await client.send(.post, "/device-keys", json: #"{"name":"a","public_key":\#(device.jwk)}"#)
            #expect(unsigned.status == .unauthorized)
            #expect(try await client.send(.get, "/device-keys").status == .unauthorized)
            #expect(try await client.send(.delete, "/device-keys/\(UUID())").status == .unauthorized)
            #expect(try await client.send(.get, "/device-keys", bearer: session.accessToken).decode(DeviceKeyList.self).deviceKeys.isEmpty)

            // Someone else's key cannot be revoked, and looks like no key at all.
            let key = try await client.register(device, session: session)
            #expect(try await client.send(.delete, "/device-keys/\(key.id)", bearer: other.accessToken).status == .notFound)
            #expect(try await client.send(.delete, "/device-keys/not-a-uuid", bearer: session.accessToken).status == .notFound)
            #expect(
                try await client.send(.get, "/device-keys", bearer: session.accessToken).decode(DeviceKeyList.self).deviceKeys.count == 1)
        }
    }

    @Test func expiredAssertionIDsAreForgottenByTheCleanup() async throws {
        try await TestServer().run { client, app async throws in
            let session = try await client.signUpConfirmed("cleanup@example.com", app: app)
            let device = TestDevice()
            let key = try await client.register(device, session: session)
            let assertion = try await device.assertion(
                keyID: key.id, userID: session.user.id.uuidString.lowercased(), expiresIn: 60)
            #expect(try await client.deviceSignIn(assertion).status == .ok)
            func remembered() async throws -> Int64? {
                try await app.store.database.read { db in
                    try await db.query("SELECT COUNT(*) AS n FROM device_key_assertions", []).first?.int("n")
                }
            }
            #expect(try await remembered() == 1)
            _ = try await app.store.deleteExpired(now: Date())
            #expect(try await remembered() == 1)
            _ = try await app.store.deleteExpired(now: Date().addingTimeInterval(120))
            #expect(try await remembered() == 0)
        }
    }
}
