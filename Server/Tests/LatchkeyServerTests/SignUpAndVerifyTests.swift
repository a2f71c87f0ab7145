import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyCore
import LatchkeyServer
import LatchkeyStore
import NIOCore
import Testing

@Suite struct SignUpAndVerifyTests {
    @Test func signUpSendsCodeAndVerifySignsIn() async throws {
        try await TestServer().run { client, app async throws in
            let response = try await client.send(
                .post, "/signup", json: #"{"email":"Ada@Example.COM","password":"correct horse battery staple","data":{"name":"Ada"}}"#)
            #expect(response.status == .ok)
            let user = try response.decode(User.self)
            #expect(user.email == "ada@example.com")
            #expect(user.userMetadata["name"] == "Ada")
            #expect(user.emailConfirmedAt == nil)
            // Not confirmed yet: password sign-in is refused.
            let early = try await client.send(
                .post, "/token?grant_type=password", json: #"{"email":"ada@example.com","password":"correct horse battery staple"}"#)
            #expect(early.status == .badRequest)
            #expect(early.errorCode == "email_not_confirmed")

            let code = try await client.latestCode(to: "ada@example.com", app: app)
            let verify = try await client.send(.post, "/verify", json: #"{"type":"signup","email":"ada@example.com","token":"\#(code)"}"#)
            #expect(verify.status == .ok)
            #expect(verify.headers[.cacheControl] == "no-store")
            let session = try verify.decode(Session.self)
            #expect(session.user.emailConfirmedAt != nil)
            #expect(session.tokenType == "bearer")

            let again = try await client.send(.post, "/verify", json: #"{"type":"signup","email":"ada@example.com","token":"\#(code)"}"#)
            #expect(again.status == .forbidden)
            #expect(again.errorCode == "otp_expired")

            let me = try await client.send(.get, "/user", bearer: session.accessToken)
            #expect(me.status == .ok)
            #expect(try me.decode(User.self).id == user.id)
        }
    }

    @Test func duplicateSignUpOfConfirmedAddressAnswersWithFakeUser() async throws {
        try await TestServer().run { client, app async throws in
            let session = try await client.signUpConfirmed("dup@example.com", app: app)
            let again = try await client.send(
                .post, "/signup", json: #"{"email":"DUP@example.com","password":"another long passphrase here"}"#)
            #expect(again.status == .ok)
            let fake = try again.decode(User.self)
            #expect(fake.id != session.user.id)
            #expect(fake.identities == [])
            // The owner is told, and the original password still works.
            try await app.settleOutbox()
            let notice = try await app.store.mailbox(to: "dup@example.com", limit: 1)
            #expect(notice.first?.message.subject == "You already have an account")
            let signIn = try await client.send(
                .post, "/token?grant_type=password", json: #"{"email":"dup@example.com","password":"correct horse battery staple"}"#)
            #expect(signIn.status == .ok)
        }
    }

    @Test func weakAndCommonPasswordsAreRefusedWithReasons() async throws {
        try await TestServer().run { client, _ async throws in
            let short = try await client.send(.post, "/signup", json: #"{"email":"w@example.com","password":"short pass"}"#)
            #expect(short.status == .unprocessableContent)
            let body = try short.decode(APIErrorBody.self)
            #expect(body.code == .weakPassword)
            #expect(body.weakPassword?.reasons == [.length])
            let common = try await client.send(.post, "/signup", json: #"{"email":"w@example.com","password":"password12345678"}"#)
            #expect(try common.decode(APIErrorBody.self).weakPassword?.reasons == [.pwned])
            let huge = String(repeating: "x", count: 5000)
            let tooLong = try await client.send(.post, "/signup", json: #"{"email":"w@example.com","password":"\#(huge)"}"#)
            #expect(tooLong.errorCode == "weak_password")
            // Nothing was stored.
            let otp = try await client.send(.post, "/otp", json: #"{"email":"w@example.com","create_user":false}"#)
            #expect(otp.errorCode == "otp_disabled")
        }
    }

    @Test func emailCodeSignInCreatesAndSignsIn() async throws {
        try await TestServer().run { client, app async throws in
            let send = try await client.send(.post, "/otp", json: #"{"email":"code@example.com"}"#)
            #expect(send.status == .ok)
            let info = try send.decode(OTPResponse.self)
            #expect(info.sentTo == "c***@example.com")
            #expect(info.codeLength == 6)
            #expect(info.expiresIn == 600)
            #expect(info.maxAttempts == 5)
            let code = try await client.latestCode(to: "code@example.com", app: app)
            let verify = try await client.send(.post, "/verify", json: #"{"type":"email","email":"code@example.com","token":"\#(code)"}"#)
            #expect(verify.status == .ok)
            // A second code for the now confirmed user is a magic-link code.
            try await client.send(.post, "/otp", json: #"{"email":"code@example.com"}"#)
            let second = try await client.latestCode(to: "code@example.com", app: app)
            let again = try await client.send(
                .post, "/verify", json: #"{"type":"magiclink","email":"code@example.com","token":"\#(second)"}"#)
            #expect(again.status == .ok)
        }
    }

    @Test func onlyTheNewestCodeIsValid() async throws {
        try await TestServer().run { client, app async throws in
            try await client.send(.post, "/otp", json: #"{"email":"new@example.com"}"#)
            let first = try await client.latestCode(to: "new@example.com", app: app)
            try await client.send(.post, "/resend", json: #"{"type":"signup","email":"new@example.com"}"#)
            let second = try await client.latestCode(to: "new@example.com", app: app)
            if first != second {
                let old = try await client.send(.post, "/verify", json: #"{"type":"email","email":"new@example.com","token":"\#(first)"}"#)
                #expect(old.errorCode == "otp_expired")
            }
            let new = try await client.send(.post, "/verify", json: #"{"type":"email","email":"new@example.com","token":"\#(second)"}"#)
            #expect(new.status == .ok)
        }
    }

    @Test func fiveWrongCodesVoidTheCode() async throws {
        try await TestServer().run { client, app async throws in
            try await client.send(.post, "/otp", json: #"{"email":"guess@example.com"}"#)
            let code = try await client.latestCode(to: "guess@example.com", app: app)
            let wrong = code == "000000" ? "111111" : "000000"
            for _ in 0..<5 {
                let response = try await client.send(
                    .post, "/verify", json: #"{"type":"email","email":"guess@example.com","token":"\#(wrong)"}"#)
                #expect(response.errorCode == "otp_expired")
            }
            let right = try await client.send(.post, "/verify", json: #"{"type":"email","email":"guess@example.com","token":"\#(code)"}"#)
            #expect(right.status == .forbidden)
        }
    }

    @Test func codeExpiresAfterItsLifetime() async throws {
        let time = ManualTimeSource(Date())
        try await TestServer().run(time: time) { client, app async throws in
            try await client.send(.post, "/otp", json: #"{"email":"late@example.com"}"#)
            let code = try await client.latestCode(to: "late@example.com", app: app)
            time.advance(by: 601)
            let response = try await client.send(.post, "/verify", json: #"{"type":"email","email":"late@example.com","token":"\#(code)"}"#)
            #expect(response.errorCode == "otp_expired")
        }
    }

    @Test func sameCodeSubmittedConcurrentlyYieldsOneSession() async throws {
        try await TestServer().run { client, app async throws in
            try await client.send(.post, "/otp", json: #"{"email":"race@example.com"}"#)
            let code = try await client.latestCode(to: "race@example.com", app: app)
            let statuses = try await client.concurrently(
                20, .post, "/verify", json: #"{"type":"email","email":"race@example.com","token":"\#(code)"}"#
            ).map(\.status)
            #expect(statuses.filter { $0 == .ok }.count == 1)
            #expect(statuses.filter { $0 == .forbidden }.count == 19)
        }
    }

    @Test func scannerOpeningTheLinkDoesNotConsumeIt() async throws {
        try await TestServer().run { client, app async throws in
            try await client.send(.post, "/otp", json: #"{"email":"scan@example.com"}"#)
            let secret = try await client.latestLinkSecret(to: "scan@example.com", app: app)
            for _ in 0..<3 {
                let page = try await client.send(.get, "/verify?token=\(secret)&type=signup&redirect_to=http://localhost:3000/welcome")
                #expect(page.status == .ok)
                #expect(page.headers[.contentType]?.hasPrefix("text/html") == true)
                #expect(page.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer")
                #expect(page.text.contains("method=\"post\""))
            }
            let click = try await client.execute(
                uri: "/verify", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "token=\(secret)&type=signup&redirect_to=http%3A%2F%2Flocalhost%3A3000%2Fwelcome")
            ) { $0 }
            #expect(click.status == .seeOther)
            let location = try #require(click.headers[.location])
            #expect(location.hasPrefix("http://localhost:3000/welcome#access_token="))
            #expect(location.contains("refresh_token="))
            let second = try await client.execute(
                uri: "/verify", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "token=\(secret)&type=signup")
            ) { $0 }
            #expect(second.headers[.location]?.contains("error_code=otp_expired") == true)
        }
    }

    @Test func tokenHashVerifiesAndRedirectsAreAllowListed() async throws {
        try await TestServer().run { client, app async throws in
            try await client.send(.post, "/otp?redirect_to=https://evil.example/steal", json: #"{"email":"hash@example.com"}"#)
            try await app.settleOutbox()
            let messages = try await app.store.mailbox(to: "hash@example.com", limit: 1)
            #expect(messages.first?.message.text.contains("evil.example") == false)
            let secret = try await client.latestLinkSecret(to: "hash@example.com", app: app)
            let verify = try await client.send(.post, "/verify", json: #"{"type":"signup","token_hash":"\#(secret)"}"#)
            #expect(verify.status == .ok)
            let bogus = try await client.send(.post, "/verify", json: #"{"type":"signup","token_hash":"nope"}"#)
            #expect(bogus.status == .forbidden)
            let body = try bogus.decode(APIErrorBody.self)
            #expect(body.message == "Email link is invalid or has expired")
        }
    }
}
