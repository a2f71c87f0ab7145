import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyCore
import LatchkeyServer
import LatchkeyStore
import NIOCore
import Testing

@Suite struct PolicyModesTests {
    @Test func autoconfirmSignUpReturnsASession() async throws {
        try await TestServer(configure: { $0.auth.mailerAutoconfirm = true }).run { client, app async throws in
            let response = try await client.send(
                .post, "/signup", json: #"{"email":"auto@example.com","password":"correct horse battery staple"}"#)
            #expect(response.status == .ok)
            let session = try response.decode(Session.self)
            #expect(session.user.emailConfirmedAt != nil)
            try await app.settleOutbox()
            #expect(try await app.store.mailbox(to: "auto@example.com", limit: 5).isEmpty)
            let again = try await client.send(
                .post, "/signup", json: #"{"email":"auto@example.com","password":"correct horse battery staple"}"#)
            #expect(again.status == .unprocessableContent)
            let body = try again.decode(APIErrorBody.self)
            #expect(body.code == .userAlreadyExists)
            #expect(body.message == "User already registered")
        }
    }

    @Test func disabledSignUpRefusesNewUsersOnly() async throws {
        try await TestServer(configure: { $0.auth.disableSignup = true }).run { client, _ async throws in
            let signUp = try await client.send(
                .post, "/signup", json: #"{"email":"no@example.com","password":"correct horse battery staple"}"#)
            #expect(signUp.errorCode == "signup_disabled")
            let otp = try await client.send(.post, "/otp", json: #"{"email":"no@example.com"}"#)
            #expect(otp.errorCode == "signup_disabled")
            let settings = try await client.send(.get, "/settings").decode(ServerSettings.self)
            #expect(settings.disableSignup)
        }
    }

    @Test func directRedirectModeConsumesOnGetLikeGoTrue() async throws {
        try await TestServer(configure: { $0.auth.linkConfirmationPage = false }).run { client, app async throws in
            try await client.send(.post, "/otp", json: #"{"email":"direct@example.com"}"#)
            let secret = try await client.latestLinkSecret(to: "direct@example.com", app: app)
            let first = try await client.send(.get, "/verify?token=\(secret)&type=signup")
            #expect(first.status == .seeOther)
            #expect(first.headers[.location]?.hasPrefix("http://localhost:3000/#access_token=") == true)
            let second = try await client.send(.get, "/verify?token=\(secret)&type=signup")
            #expect(second.headers[.location]?.contains("error_code=otp_expired") == true)
        }
    }

    @Test func brokenLinksAreRefusedAndUnknownOnesRedirectWithAnError() async throws {
        try await TestServer().run { client, _ async throws in
            // A link without its type or token is GoTrue's 400, never a page or a redirect, whether
            // opened (GET) or sent by the confirmation page's form (POST).
            for uri in [
                "/verify?token=abc&type=nonsense", "/verify?token=abc", "/verify?token=abc&type=", "/verify?type=signup",
                "/verify?type=signup&token=",
            ] {
                let refused = try await client.send(.get, uri)
                #expect(refused.status == .badRequest, "\(uri)")
                #expect(refused.errorCode == "validation_failed", "\(uri)")
            }
            for form in ["token=abc&type=nonsense", "token=abc", "type=signup", "token=&type=signup"] {
                let refused = try await client.execute(
                    uri: "/verify", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                    body: ByteBuffer(string: form)
                ) { $0 }
                #expect(refused.status == .badRequest, "\(form)")
                #expect(refused.headers[.location] == nil, "\(form)")
            }
            // A well-formed link that matches nothing redirects with the error.
            let unknown = try await client.execute(
                uri: "/verify", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "token=abc&type=signup")
            ) { $0 }
            #expect(unknown.status == .seeOther)
            #expect(unknown.headers[.location]?.contains("error_code=otp_expired") == true)
        }
    }

    @Test func concurrentSignUpsOfOneAddressMakeOneUser() async throws {
        try await TestServer().run { client, app async throws in
            let statuses = try await client.concurrently(10, .post, "/signup") {
                #"{"email":"Same@Example.com","password":"correct horse battery staple \#($0)"}"#
            }.map(\.status)
            #expect(statuses.allSatisfy { $0 == .ok })
            let user = try #require(try await app.store.user(email: "same@example.com"))
            #expect(try await app.store.identities(userID: user.id).count == 1)
        }
    }

    @Test func operatorTemplatesShapeTheMailUsersGet() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("templates-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try "Hello {{ data.name }}, your code is {{ code }}.\nLink: {{ link }}"
            .write(to: folder.appendingPathComponent("confirmation.text.mustache"), atomically: true, encoding: .utf8)
        let templates = try MessageTemplates.load(directory: folder.path, subjects: [.confirmation: "{{ code }} confirms {{ email }}"])
        try await TestServer(configure: { $0.templates = templates }).run { client, app async throws in
            try await client.send(
                .post, "/signup", json: #"{"email":"tpl@example.com","password":"correct horse battery staple","data":{"name":"Ada"}}"#)
            let code = try await client.latestCode(to: "tpl@example.com", app: app)
            let mail = try #require(try await app.store.mailbox(to: "tpl@example.com", limit: 1).first?.message)
            #expect(mail.subject == "\(code) confirms tpl@example.com")
            #expect(mail.text.hasPrefix("Hello Ada, your code is \(code).\nLink: http://127.0.0.1:9999/verify?token="))
            #expect(mail.html.contains("<strong>\(code)</strong>"))  // the HTML part keeps its default
            let verify = try await client.send(.post, "/verify", json: #"{"type":"signup","email":"tpl@example.com","token":"\#(code)"}"#)
            #expect(verify.status == .ok)
        }
    }

    @Test func verifyAndResendValidateTheirInput() async throws {
        try await TestServer().run { client, _ async throws in
            #expect(
                try await client.send(.post, "/verify", json: #"{"email":"a@example.com","token":"123456"}"#).errorCode
                    == "validation_failed")
            #expect(
                try await client.send(.post, "/verify", json: #"{"type":"teleport","email":"a@example.com","token":"1"}"#).errorCode
                    == "validation_failed")
            #expect(
                try await client.send(.post, "/verify", json: #"{"type":"invite","email":"a@example.com","token":"123456"}"#).errorCode
                    == "otp_expired")
            #expect(
                try await client.send(.post, "/verify", json: #"{"type":"recovery","email":"a@example.com","token":"123456"}"#).errorCode
                    == "otp_expired")
            #expect(
                try await client.send(.post, "/verify", json: #"{"type":"email","email":"a@example.com"}"#).errorCode == "validation_failed"
            )
            #expect(
                try await client.send(.post, "/verify", json: #"{"type":"email","email":"nobody@example.com","token":"123456"}"#).errorCode
                    == "otp_expired")
            #expect(
                try await client.send(.post, "/resend", json: #"{"type":"nonsense","email":"a@example.com"}"#).errorCode
                    == "validation_failed")
            let unknown = try await client.send(.post, "/resend", json: #"{"type":"signup","email":"nobody@example.com"}"#)
            #expect(unknown.status == .ok)
            #expect(try unknown.decode(OTPResponse.self).sentTo == "n***@example.com")
            #expect(
                try await client.send(.post, "/signup", json: #"{"password":"correct horse battery staple"}"#).errorCode
                    == "anonymous_provider_disabled")
            #expect(try await client.send(.post, "/signup", json: #"{"email":"a@example.com"}"#).errorCode == "validation_failed")
        }
    }

    @Test func invalidUTF8AndNonObjectBodiesAreBadJSON() async throws {
        try await TestServer().run { client, _ async throws in
            let response = try await client.execute(
                uri: "/signup", method: .post, headers: [.contentType: "application/json", apiVersionHeader: "2024-01-01"],
                body: ByteBuffer(bytes: [0x7B, 0x22, 0x65, 0xFF, 0xFE, 0x22, 0x3A, 0x31, 0x7D])
            ) { $0 }
            #expect(response.status == .badRequest)
            #expect(response.errorCode == "bad_json")
        }
    }

    @Test func intentTellsKnownAndUnknownAddressesApartOnlyWhenAsked() async throws {
        try await TestServer().run { client, app async throws in
            _ = try await client.signUpConfirmed("known@example.com", app: app)
            let signUp = try await client.send(.post, "/otp", json: #"{"email":"known@example.com","intent":"signup"}"#)
            #expect(signUp.errorCode == "user_already_exists")
            let signIn = try await client.send(.post, "/otp", json: #"{"email":"unknown@example.com","intent":"signin"}"#)
            #expect(signIn.errorCode == "user_not_found")
            #expect(signIn.status == .unprocessableContent)
            #expect(try await app.store.user(email: "unknown@example.com") == nil)
            #expect(try await client.send(.post, "/otp", json: #"{"email":"known@example.com","intent":"signin"}"#).status == .ok)
            #expect(try await client.send(.post, "/otp", json: #"{"email":"new@example.com","intent":"signup"}"#).status == .ok)
            #expect(
                try await client.send(.post, "/otp", json: #"{"email":"x@example.com","intent":"other"}"#).errorCode == "validation_failed")
        }
    }

    @Test func expiredCodesSayWhy() async throws {
        let time = ManualTimeSource(Date())
        try await TestServer().run(time: time) { client, app async throws in
            try await client.send(.post, "/otp", json: #"{"email":"why@example.com"}"#)
            let code = try await client.latestCode(to: "why@example.com", app: app)
            time.advance(by: 601)
            let body = try await client.send(.post, "/verify", json: #"{"type":"email","email":"why@example.com","token":"\#(code)"}"#)
                .decode(APIErrorBody.self)
            #expect(body.reason == "expired")
            let legacy = try await client.send(
                .post, "/verify", json: #"{"type":"email","email":"why@example.com","token":"\#(code)"}"#, legacy: true
            ).decode(LegacyAPIErrorBody.self)
            #expect(legacy.reason == "expired")
        }
    }
}
