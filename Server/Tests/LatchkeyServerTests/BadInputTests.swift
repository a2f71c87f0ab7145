import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyCore
import LatchkeyServer
import LatchkeyStore
import NIOCore
import Testing

@Suite struct BadInputTests {
    static let endpoints = [
        "/signup", "/token?grant_type=password", "/token?grant_type=refresh_token", "/otp", "/verify", "/resend", "/magiclink",
        "/recover",
    ]

    @Test(arguments: endpoints)
    func malformedBodiesAreClear4xx(path: String) async throws {
        try await TestServer().run { client, _ async throws in
            for body in [
                "{not json", "[1,2,3]", "\"text\"", #"{"email":123,"password":true,"type":[],"refresh_token":{}}"#,
                String(repeating: "[", count: 10_000),
            ] {
                let response = try await client.send(.post, path, json: body)
                #expect((400..<500).contains(Int(response.status.code)), "\(path) answered \(response.status) to \(body.prefix(20))")
                #expect(response.errorCode != nil || (try? response.decode(OAuthErrorBody.self)) != nil)
            }
        }
    }

    /// No body at all is not JSON, as on GoTrue (`400 bad_json`), and nothing is done: an
    /// anonymous sign-up needs `{}`, a user update its fields. Only `DELETE /admin/users/{id}`,
    /// whose body is optional, reads nothing as `{}`.
    @Test func anEmptyBodyIsBadJSONAndDoesNothing() async throws {
        try await TestServer(configure: { $0.auth.anonymousUsers = true }).run { client, app async throws in
            for path in Self.endpoints + ["/verify"] {
                let response = try await client.send(.post, path)
                #expect(response.status == .badRequest, "\(path)")
                #expect(response.errorCode == "bad_json" || (try? response.decode(OAuthErrorBody.self)) != nil, "\(path)")
            }
            #expect(try await app.store.listUsers(emailContains: nil, anonymous: nil, offset: 0, limit: 10).total == 0)
            let session = try await client.signUpConfirmed("empty@example.com", app: app)
            let update = try await client.send(.put, "/user", bearer: session.accessToken)
            #expect(update.status == .badRequest && update.errorCode == "bad_json")
            let token = try await app.issuer.sign(AccessTokenClaims(iss: "supabase", role: "service_role"))
            #expect(try await client.send(.post, "/admin/users", bearer: token).errorCode == "bad_json")
            let deleted = try await client.send(.delete, "/admin/users/\(session.user.id.uuidString)", bearer: token)
            #expect(deleted.status == .ok)
        }
    }

    /// GoTrue reads a JSON body whatever the `Content-Type`: the README's `curl -d '{…}'` (which
    /// labels it a form) confirms a sign-up at `POST /verify`, and a real form post (the link
    /// page's button) is still read as a form.
    @Test func aJSONBodyLabelledAFormIsReadAsJSON() async throws {
        try await TestServer().run { client, app async throws in
            let signUp = try await client.send(
                .post, "/signup", json: #"{"email":"curl@example.com","password":"correct horse battery staple"}"#)
            #expect(signUp.status == .ok)
            let code = try await client.latestCode(to: "curl@example.com", app: app)
            let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
            let verified = try await client.execute(
                uri: "/verify", method: .post, headers: form,
                body: ByteBuffer(string: #" {"type":"signup","email":"curl@example.com","token":"\#(code)"}"#)
            ) { $0 }
            #expect(verified.status == .ok)
            #expect(try verified.decode(Session.self).user.email == "curl@example.com")
            // A form stays a form: a link's button without its token is GoTrue's 400, not a JSON error.
            let button = try await client.execute(uri: "/verify", method: .post, headers: form, body: ByteBuffer(string: "type=signup")) {
                $0
            }
            #expect(button.status == .badRequest)
        }
    }

    @Test(arguments: endpoints)
    func oversizedBodiesAre413(path: String) async throws {
        try await TestServer().run { client, _ async throws in
            let big = #"{"email":""# + String(repeating: "a", count: 1_100_000) + #""}"#
            let response = try await client.send(.post, path, json: big)
            #expect(response.status == .contentTooLarge)
            #expect(response.errorCode == "request_entity_too_large")
        }
    }

    /// A known path asked with a method it does not answer is `405` with `Allow` listing the
    /// ones it does (a parameter segment matches any id); an unknown path stays `404`.
    @Test func otherMethodsOnKnownPathsAre405WithAllow() async throws {
        try await TestServer().run { client, _ async throws in
            let cases: [(HTTPRequest.Method, String, String)] = [
                (.init("TRACE")!, "/user", "GET, PUT, DELETE"), (.patch, "/token?grant_type=password", "POST"),
                (.delete, "/settings", "GET"), (.init("TRACE")!, "/admin/users/\(UUID().uuidString)", "GET, PUT, DELETE"),
                (.get, "/signup", "POST"),
            ]
            for (method, uri, allow) in cases {
                let response = try await client.send(method, uri)
                #expect(response.status == .methodNotAllowed, "\(method) \(uri)")
                #expect(response.headers[.allow] == allow, "\(method) \(uri)")
                #expect(response.errorCode == "validation_failed", "\(method) \(uri)")
            }
            #expect(try await client.send(.get, "/no-such-path").status == .notFound)
            #expect(try await client.send(.init("TRACE")!, "/user/extra/segments").status == .notFound)
        }
    }

    @Test func invalidAndHostileEmailsChangeNothing() async throws {
        try await TestServer().run { client, app async throws in
            let session = try await client.signUpConfirmed("keep@example.com", app: app)
            for email in [
                "not-an-email", "a@b", "'; DROP TABLE users;--@x.com", "\" OR 1=1 --", "a\nb@example.com",
                String(repeating: "l", count: 65) + "@example.com", "аdmin@example.com\u{0}",
            ] {
                let json = try String(
                    decoding: JSONEncoder().encode(["email": email, "password": "correct horse battery staple"]), as: UTF8.self)
                let response = try await client.send(.post, "/signup", json: json)
                #expect((400..<500).contains(Int(response.status.code)))
                #expect(response.errorCode == "email_address_invalid")
            }
            #expect(try await client.send(.get, "/user", bearer: session.accessToken).status == .ok)
        }
    }

    @Test func updatesWithBadValuesAreClear4xxAndChangeNothing() async throws {
        try await TestServer().run { client, app async throws in
            let session = try await client.signUpConfirmed("whole@example.com", app: app)
            let before = try #require(try await app.store.user(email: "whole@example.com"))
            for body in [
                #"{"email":123}"#, #"{"phone":true}"#, #"{"phone":"+0000"}"#, #"{"phone":"٣٣٣٣٣٣٣"}"#, #"{"email":"x@y"}"#,
                #"{"phone":"+15551234567","channel":"fax"}"#,
                #"{"email":"new@example.com","code_challenge":"short","code_challenge_method":"s256"}"#,
                #"{"nonce":[1]}"#, "{not json", #"{"data":"not an object"}"#,
                #"{"email":"'; DROP TABLE users;--@x.com"}"#,
            ] {
                let response = try await client.send(.put, "/user", json: body, bearer: session.accessToken)
                #expect((400..<500).contains(Int(response.status.code)), "PUT /user answered \(response.status) to \(body)")
                #expect(response.errorCode != nil, "\(body)")
            }
            let after = try #require(try await app.store.user(email: "whole@example.com"))
            #expect(after == before)
            #expect(try await client.send(.get, "/reauthenticate", bearer: "not-a-token").status == .forbidden)
            #expect(
                try await client.send(.post, "/verify", json: #"{"type":"phone_change","phone":"+15551234567","token":"x"}"#).errorCode
                    == "otp_expired")
        }
    }

    @Test func aPhoneUserLinksAnEmailWithOneConfirmation() async throws {
        try await TestServer(configure: { $0.auth.sms.testOTPs = ["15550002222": "246810"] }).run { client, app async throws in
            try await client.send(.post, "/otp", json: #"{"phone":"+15550002222"}"#)
            let session = try await client.send(.post, "/verify", json: #"{"type":"sms","phone":"+15550002222","token":"246810"}"#)
                .decode(Session.self)
            #expect(session.user.email == "")
            let pending = try await client.send(.put, "/user", json: #"{"email":"phone.user@example.com"}"#, bearer: session.accessToken)
            #expect(try pending.decode(User.self).newEmail == "phone.user@example.com")
            let code = try await client.latestCode(to: "phone.user@example.com", app: app)
            let linked = try await client.send(
                .post, "/verify", json: #"{"type":"email_change","email":"phone.user@example.com","token":"\#(code)"}"#
            ).decode(Session.self)
            #expect(linked.user.email == "phone.user@example.com")
            #expect(linked.user.phone == "15550002222")
            #expect(Set(linked.user.identities?.map(\.provider) ?? []) == ["email", "phone"])
            #expect(linked.user.appMetadata["providers"] == ["phone", "email"])
            #expect(
                try await client.send(.post, "/token?grant_type=password", json: #"{"email":"phone.user@example.com","password":"x"}"#)
                    .errorCode == "invalid_credentials")
        }
    }
}
