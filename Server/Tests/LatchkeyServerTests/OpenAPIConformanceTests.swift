import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyCore
import LatchkeyServer
import LatchkeyStore
import NIOCore
import Testing

/// Every response below is held against `openapi.json`: an undocumented status, content type or
/// a body that does not match its schema fails the test.
@Suite struct OpenAPIConformanceTests {
    @Test func responsesMatchTheirDocumentation() async throws {
        try await TestServer(configure: { $0.auth.rateLimits.verifyPerIP = RateLimit(count: 40, period: 300) }).run {
            client, app async throws in
            let spec = try OpenAPIValidator(Data(try await client.send(.get, "/openapi.json").body.readableBytesView))
            var problems: [String] = []
            func check(
                _ method: HTTPRequest.Method, _ uri: String, json: String? = nil, bearer: String? = nil, legacy: Bool = false,
                headers: HTTPFields = [:], documentedAs template: String? = nil
            ) async throws -> TestResponse {
                let response = try await client.send(method, uri, json: json, bearer: bearer, headers: headers, legacy: legacy)
                let path = template ?? String(uri.split(separator: "?").first ?? "")
                problems += spec.problems(
                    method: method.rawValue, path: path, status: Int(response.status.code), contentType: response.headers[.contentType],
                    body: Data(response.body.readableBytesView))
                return response
            }
            _ = try await check(.get, "/health")
            _ = try await check(.get, "/settings")
            _ = try await check(.get, "/.well-known/jwks.json")
            _ = try await check(
                .post, "/signup", json: #"{"email":"spec@example.com","password":"correct horse battery staple","data":{"n":1}}"#)
            _ = try await check(.post, "/signup", json: #"{"email":"spec@example.com","password":"short"}"#)
            _ = try await check(.post, "/signup", json: #"{"email":"spec@example.com","password":"short"}"#, legacy: true)
            _ = try await check(.post, "/signup", json: #"{"email":"bad"}"#)
            _ = try await check(.post, "/signup", json: "{oops")
            let code = try await client.latestCode(to: "spec@example.com", app: app)
            _ = try await check(.post, "/verify", json: #"{"type":"signup","email":"spec@example.com","token":"000000"}"#)
            let session = try await check(.post, "/verify", json: #"{"type":"signup","email":"spec@example.com","token":"\#(code)"}"#)
                .decode(Session.self)
            _ = try await check(.post, "/verify", json: #"{"email":"spec@example.com","token":"1"}"#)
            _ = try await check(
                .post, "/token?grant_type=password", json: #"{"email":"spec@example.com","password":"correct horse battery staple"}"#)
            _ = try await check(
                .post, "/token?grant_type=password", json: #"{"email":"spec@example.com","password":"nope nope nope nope"}"#)
            _ = try await check(.post, "/token?grant_type=refresh_token", json: "{}")
            _ = try await check(.post, "/token?grant_type=refresh_token", json: #"{"refresh_token":"\#(session.refreshToken)"}"#)
            _ = try await check(.post, "/token?grant_type=refresh_token", json: #"{"refresh_token":"junk"}"#)
            _ = try await check(
                .post, "/token?grant_type=pkce", json: #"{"auth_code":"nope","code_verifier":"\#(String(repeating: "v", count: 50))"}"#)
            _ = try await check(.post, "/token?grant_type=pkce", json: #"{"auth_code":"","code_verifier":""}"#)
            _ = try await check(.post, "/otp", json: #"{"email":"spec@example.com"}"#)
            _ = try await check(.post, "/otp", json: #"{"email":"fresh@example.com","create_user":false}"#)
            _ = try await check(.post, "/resend", json: #"{"type":"signup","email":"spec@example.com"}"#)
            _ = try await check(.post, "/resend", json: #"{"type":"what"}"#)
            _ = try await check(.get, "/verify?token=abc&type=signup")
            _ = try await check(.get, "/user", bearer: session.accessToken)
            _ = try await check(.get, "/user")
            _ = try await check(.get, "/user", bearer: "x.y.z")
            _ = try await check(.put, "/user", json: #"{"data":{"team":"core"}}"#, bearer: session.accessToken)
            _ = try await check(.put, "/user", json: #"{"password":"tiny"}"#, bearer: session.accessToken)
            _ = try await check(.put, "/user", json: #"{"app_metadata":{}}"#, bearer: session.accessToken)
            _ = try await check(.get, "/reauthenticate", bearer: session.accessToken)
            _ = try await check(.get, "/reauthenticate")
            _ = try await check(
                .put, "/user?redirect_to=http://localhost:3000", json: #"{"email":"spec2@example.com"}"#, bearer: session.accessToken)
            let changeCode = try await client.latestCode(to: "spec2@example.com", app: app)
            _ = try await check(.post, "/verify", json: #"{"type":"email_change","email":"spec2@example.com","token":"\#(changeCode)"}"#)
            _ = try await check(.post, "/resend", json: #"{"type":"email_change","email":"spec@example.com"}"#)
            _ = try await check(.post, "/recover", json: #"{"email":"spec@example.com"}"#)
            _ = try await check(.post, "/recover", json: #"{"email":"nope"}"#)
            _ = try await check(.post, "/magiclink", json: #"{"email":"spec3@example.com"}"#)
            _ = try await check(.post, "/signup", json: #"{"phone":"+15551234567","password":"correct horse battery staple"}"#)
            _ = try await check(.post, "/otp", json: #"{"phone":"+15557654321"}"#)
            _ = try await check(.post, "/otp", json: #"{"phone":"+0"}"#)
            _ = try await check(.post, "/resend", json: #"{"type":"sms","phone":"+15551234567"}"#)
            _ = try await check(.post, "/verify", json: #"{"type":"sms","phone":"+15551234567","token":"000000"}"#)
            _ = try await check(
                .post, "/token?grant_type=password", json: #"{"phone":"+15551234567","password":"correct horse battery staple"}"#)
            _ = try await check(.put, "/user", json: #"{"phone":"+15550009999"}"#, bearer: session.accessToken)
            _ = try await check(.get, "/_dev/mailbox", headers: [.accept: "application/json"])
            _ = try await check(.get, "/_dev/mailbox?to=spec@example.com")
            let one = try await check(.get, "/_dev/mailbox?limit=1", headers: [.accept: "application/json"])
            #expect(try one.decode(MailboxResponse.self).messages.count == 1)
            for bad in ["0", "101", "ten", "-1"] {
                let refused = try await check(.get, "/_dev/mailbox?limit=\(bad)", headers: [.accept: "application/json"])
                #expect(refused.status == .badRequest && refused.errorCode == "validation_failed", "limit=\(bad)")
            }
            let device = TestDevice()
            let deviceKey = try await check(
                .post, "/device-keys", json: #"{"name":"Phone","public_key":\#(device.jwk)}"#, bearer: session.accessToken
            ).decode(DeviceKey.self)
            _ = try await check(.post, "/device-keys", json: #"{"name":"Phone","public_key":{"kty":"EC"}}"#, bearer: session.accessToken)
            _ = try await check(.post, "/device-keys", json: "{}")
            _ = try await check(.get, "/device-keys", bearer: session.accessToken)
            _ = try await check(.get, "/device-keys")
            let assertion = try await device.assertion(keyID: deviceKey.id, userID: session.user.id.uuidString.lowercased())
            let bearerGrant = "/token?grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer"
            _ = try await check(.post, bearerGrant, json: #"{"assertion":"\#(assertion)"}"#)
            _ = try await check(.post, bearerGrant, json: #"{"assertion":"\#(assertion)"}"#)
            _ = try await check(.post, bearerGrant, json: "{}")
            _ = try await check(.delete, "/device-keys/\(deviceKey.id)", bearer: session.accessToken, documentedAs: "/device-keys/{id}")
            _ = try await check(.delete, "/device-keys/\(deviceKey.id)", bearer: session.accessToken, documentedAs: "/device-keys/{id}")
            _ = try await check(.delete, "/device-keys/\(deviceKey.id)", documentedAs: "/device-keys/{id}")
            let verifier = Base64URL.encode(Data(repeating: 1, count: 32))
            let vault = try await check(.post, "/vaults", json: #"{"verifier":"\#(verifier)"}"#, bearer: session.accessToken)
                .decode(KeyVault.self)
            _ = try await check(.post, "/vaults", json: "{}", bearer: session.accessToken)
            _ = try await check(.get, "/vaults", bearer: session.accessToken)
            let unlockPath = "/vaults/{id}/unlock"
            _ = try await check(
                .post, "/vaults/\(vault.id)/unlock", json: #"{"verifier":"\#(verifier)"}"#, bearer: session.accessToken,
                documentedAs: unlockPath)
            let wrong = Base64URL.encode(Data(repeating: 2, count: 32))
            for _ in 0..<10 {
                _ = try await check(
                    .post, "/vaults/\(vault.id)/unlock", json: #"{"verifier":"\#(wrong)"}"#, bearer: session.accessToken,
                    documentedAs: unlockPath)
            }
            _ = try await check(
                .post, "/vaults/\(UUID())/unlock", json: #"{"verifier":"\#(wrong)"}"#, bearer: session.accessToken, documentedAs: unlockPath
            )
            _ = try await check(.delete, "/vaults/\(vault.id)", bearer: session.accessToken, documentedAs: "/vaults/{id}")
            _ = try await check(.delete, "/vaults/\(vault.id)", bearer: session.accessToken, documentedAs: "/vaults/{id}")
            let signerKey = Base64URL.encode(Data(repeating: 4, count: 32))
            let signerBox = Base64URL.encode(Data(repeating: 5, count: 60))
            _ = try await check(.get, "/signer/backup", bearer: session.accessToken)
            _ = try await check(
                .put, "/signer/backup", json: #"{"public_key":"\#(signerKey)","recovery":"automatic","ciphertext":"\#(signerBox)"}"#,
                bearer: session.accessToken)
            _ = try await check(.put, "/signer/backup", json: #"{"recovery":"nope"}"#, bearer: session.accessToken)
            _ = try await check(
                .put, "/signer/backup",
                json:
                    #"{"public_key":"\#(Base64URL.encode(Data(repeating: 6, count: 32)))","recovery":"automatic","ciphertext":"\#(signerBox)"}"#,
                bearer: session.accessToken)
            _ = try await check(.get, "/signer/backup", bearer: session.accessToken)
            _ = try await check(.post, "/signer/recovery-key", bearer: session.accessToken)
            _ = try await check(.post, "/signer/recovery-key")
            _ = try await check(.delete, "/signer/backup", bearer: session.accessToken)
            _ = try await check(.delete, "/signer/backup", bearer: session.accessToken)
            let admin = try await app.issuer.sign(AccessTokenClaims(role: "service_role"))
            let managed = try await check(.post, "/admin/users", json: #"{"email":"managed@example.com"}"#, bearer: admin)
                .decode(User.self)
            _ = try await check(.post, "/admin/users", json: #"{"email":"managed@example.com"}"#, bearer: admin)
            _ = try await check(.post, "/admin/users", json: "{}", bearer: admin)
            _ = try await check(.get, "/admin/users?per_page=1", bearer: admin)
            _ = try await check(.get, "/admin/users?page=0", bearer: admin)
            _ = try await check(.get, "/admin/users", bearer: session.accessToken)
            _ = try await check(.get, "/admin/users")
            let managedPath = "/admin/users/\(managed.id.uuidString.lowercased())"
            _ = try await check(.get, managedPath, bearer: admin, documentedAs: "/admin/users/{id}")
            _ = try await check(.put, managedPath, json: #"{"ban_duration":"1h"}"#, bearer: admin, documentedAs: "/admin/users/{id}")
            _ = try await check(.put, managedPath, json: #"{"ban_duration":"x"}"#, bearer: admin, documentedAs: "/admin/users/{id}")
            _ = try await check(.delete, managedPath, bearer: admin, documentedAs: "/admin/users/{id}")
            _ = try await check(.get, managedPath, bearer: admin, documentedAs: "/admin/users/{id}")
            _ = try await check(.get, "/admin/audit?per_page=5&action=login", bearer: admin)
            _ = try await check(.get, "/admin/audit?action=nope", bearer: admin)
            _ = try await check(.post, "/invite", json: #"{"email":"invited@example.com"}"#, bearer: admin)
            _ = try await check(.post, "/invite", json: #"{"email":"invited@example.com"}"#, bearer: admin)
            _ = try await check(.post, "/admin/generate_link", json: #"{"type":"magiclink","email":"spec@example.com"}"#, bearer: admin)
            _ = try await check(.post, "/admin/generate_link", json: #"{"type":"recovery","email":"none@example.com"}"#, bearer: admin)
            _ = try await check(.post, "/admin/generate_link", json: #"{"type":"x"}"#, bearer: admin)
            let enrolled = try await check(.post, "/factors", json: #"{"factor_type":"totp"}"#, bearer: session.accessToken)
                .decode(TOTPEnrollment.self)
            _ = try await check(.post, "/factors", json: #"{"factor_type":"sms"}"#, bearer: session.accessToken)
            let factorPath = "/factors/\(enrolled.id.uuidString.lowercased())"
            let challenge = try await check(
                .post, factorPath + "/challenge", json: "{}", bearer: session.accessToken, documentedAs: "/factors/{id}/challenge"
            ).decode(FactorChallenge.self)
            _ = try await check(
                .post, "/factors/nope/challenge", json: "{}", bearer: session.accessToken, documentedAs: "/factors/{id}/challenge")
            let totp = TOTP(secret: Base32.decode(enrolled.totp.secret) ?? [])
            _ = try await check(
                .post, factorPath + "/verify", json: #"{"challenge_id":"\#(challenge.id.uuidString)","code":"abcdef"}"#,
                bearer: session.accessToken, documentedAs: "/factors/{id}/verify")
            _ = try await check(
                .post, factorPath + "/verify",
                json: #"{"challenge_id":"\#(challenge.id.uuidString)","code":"\#(totp.code(step: totp.step(at: Date())))"}"#,
                bearer: session.accessToken, documentedAs: "/factors/{id}/verify")
            let userPath = "/admin/users/\(session.user.id.uuidString.lowercased())"
            _ = try await check(.get, userPath + "/factors", bearer: admin, documentedAs: "/admin/users/{id}/factors")
            _ = try await check(
                .delete, userPath + "/factors/\(UUID().uuidString)", bearer: admin, documentedAs: "/admin/users/{id}/factors/{fid}")
            _ = try await check(.delete, factorPath, bearer: session.accessToken, documentedAs: "/factors/{id}")
            _ = try await check(.delete, factorPath, bearer: session.accessToken, documentedAs: "/factors/{id}")
            _ = try await check(.post, "/logout?scope=nope", bearer: session.accessToken)
            _ = try await check(.post, "/logout", bearer: session.accessToken)
            _ = try await check(.post, "/logout", bearer: session.accessToken)
            // Last: a 413 ends its connection (the rest of the body is not read).
            let tooLarge = try await check(.post, "/signup", json: #"{"email":""# + String(repeating: "a", count: 1_100_000) + #""}"#)
            #expect(tooLarge.status == .contentTooLarge && tooLarge.headers[.connection] == "close")
            #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        }
    }
}

extension OpenAPIConformanceTests {
    @Test func theValidatorCatchesWrongDescriptions() async throws {
        try await TestServer().run { client, _ async throws in
            let spec = try OpenAPIValidator(Data(try await client.send(.get, "/openapi.json").body.readableBytesView))
            let json = "application/json"
            // A user without its id, with an upper-case id, an unknown status, an undocumented type.
            let missing =
                #"{"aud":"authenticated","role":"authenticated","email":"","phone":"","created_at":"2024-01-01T00:00:00Z","updated_at":"2024-01-01T00:00:00Z","app_metadata":{},"user_metadata":{},"identities":[],"is_anonymous":false}"#
            #expect(!spec.problems(method: "GET", path: "/user", status: 200, contentType: json, body: Data(missing.utf8)).isEmpty)
            let upper = missing.replacingOccurrences(of: #"{"aud""#, with: #"{"id":"8E1A0C52-6B8B-4C69-9F21-0D6C4D1D5E11","aud""#)
            #expect(!spec.problems(method: "GET", path: "/user", status: 200, contentType: json, body: Data(upper.utf8)).isEmpty)
            let lower = upper.replacingOccurrences(of: "8E1A0C52-6B8B-4C69-9F21-0D6C4D1D5E11", with: "8e1a0c52-6b8b-4c69-9f21-0d6c4d1d5e11")
            #expect(spec.problems(method: "GET", path: "/user", status: 200, contentType: json, body: Data(lower.utf8)).isEmpty)
            #expect(!spec.problems(method: "GET", path: "/user", status: 418, contentType: json, body: Data()).isEmpty)
            #expect(!spec.problems(method: "GET", path: "/user", status: 200, contentType: "text/plain", body: Data(lower.utf8)).isEmpty)
            #expect(!spec.problems(method: "GET", path: "/nowhere", status: 200, contentType: json, body: Data()).isEmpty)
        }
    }
}
