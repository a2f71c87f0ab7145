import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyCore
import LatchkeyServer
import LatchkeyStore
import NIOCore
import Testing

@Suite struct RecoveryTests {
    /// Waits for a message with `subject` to `email` (recovery mail is sent in the background).
    func waitForMail(_ app: UseCases, to email: String, subject: String) async throws -> StoredEmail {
        // Up to about ten seconds: the suite runs many servers at once.
        for _ in 0..<500 {
            try await app.settleOutbox()
            if let message = try await app.store.mailbox(to: email, limit: 1).first, message.message.subject == subject { return message }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw AuthError(.notFound, "no \(subject) mail to \(email)")
    }

    @Test func knownAndUnknownAddressesGetTheSameAnswer() async throws {
        try await TestServer().run { client, app async throws in
            _ = try await client.signUpConfirmed("known@example.com", app: app)
            let known = try await client.send(.post, "/recover", json: #"{"email":"known@example.com"}"#)
            let unknown = try await client.send(.post, "/recover", json: #"{"email":"nobody@example.com"}"#)
            #expect(known.status == .ok)
            #expect(unknown.status == .ok)
            #expect(try known.decode(OTPResponse.self).codeLength == unknown.decode(OTPResponse.self).codeLength)
            _ = try await waitForMail(app, to: "known@example.com", subject: "Reset your password")
            #expect(try await app.store.mailbox(to: "nobody@example.com", limit: 1).isEmpty)
            // A second request inside the cooldown is not an error either (it would tell).
            #expect(try await client.send(.post, "/recover", json: #"{"email":"known@example.com"}"#).status == .ok)
            #expect(try await client.send(.post, "/recover", json: #"{"email":"not an email"}"#).errorCode == "email_address_invalid")
        }
    }

    @Test func resetWithTheCodeEndsOtherSessionsAndNotifies() async throws {
        try await TestServer().run { client, app async throws in
            let first = try await client.signUpConfirmed("reset@example.com", app: app)
            let other = try await client.send(
                .post, "/token?grant_type=password", json: #"{"email":"reset@example.com","password":"correct horse battery staple"}"#
            ).decode(Session.self)
            try await client.send(.post, "/recover", json: #"{"email":"reset@example.com"}"#)
            let mail = try await waitForMail(app, to: "reset@example.com", subject: "Reset your password")
            let code = String(try #require(mail.message.text.firstMatch(of: /is (\d{6})\./)).1)
            #expect(mail.message.text.contains("type=recovery"))
            // A recovery code is not a sign-in code.
            #expect(
                try await client.send(.post, "/verify", json: #"{"type":"email","email":"reset@example.com","token":"\#(code)"}"#).errorCode
                    == "otp_expired")
            let recovered = try await client.send(
                .post, "/verify", json: #"{"type":"recovery","email":"reset@example.com","token":"\#(code)"}"#
            ).decode(Session.self)
            let changed = try await client.send(
                .put, "/user", json: #"{"password":"a fresh new passphrase"}"#, bearer: recovered.accessToken)
            #expect(changed.status == .ok)
            for old in [first, other] {
                #expect(try await client.send(.get, "/user", bearer: old.accessToken).errorCode == "session_not_found")
            }
            let notice = try await waitForMail(app, to: "reset@example.com", subject: "Your password was changed")
            #expect(notice.message.text.contains("signed out"))
            #expect(
                try await client.send(
                    .post, "/token?grant_type=password", json: #"{"email":"reset@example.com","password":"a fresh new passphrase"}"#
                ).status == .ok)
            #expect(
                try await client.send(
                    .post, "/token?grant_type=password", json: #"{"email":"reset@example.com","password":"correct horse battery staple"}"#
                ).errorCode == "invalid_credentials")
        }
    }

    @Test func theRecoveryLinkSurvivesAScannerAndSignsIn() async throws {
        try await TestServer().run { client, app async throws in
            _ = try await client.signUpConfirmed("link@example.com", app: app)
            try await client.send(.post, "/recover", json: #"{"email":"link@example.com"}"#)
            let mail = try await waitForMail(app, to: "link@example.com", subject: "Reset your password")
            let secret = String(try #require(mail.message.text.firstMatch(of: /token=([A-Za-z0-9_-]+)/)).1)
            #expect(try await client.send(.get, "/verify?token=\(secret)&type=recovery").status == .ok)
            let click = try await client.execute(
                uri: "/verify", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "token=\(secret)&type=recovery")
            ) { $0 }
            let location = try #require(click.headers[.location])
            #expect(location.contains("#access_token="))
            #expect(location.contains("type=recovery"))
        }
    }

    @Test func magicLinkEndpointSendsLinkAndCode() async throws {
        try await TestServer().run { client, app async throws in
            #expect(try await client.send(.post, "/magiclink", json: #"{"email":"magic@example.com"}"#).status == .ok)
            let code = try await client.latestCode(to: "magic@example.com", app: app)
            #expect(
                try await client.send(.post, "/verify", json: #"{"type":"magiclink","email":"magic@example.com","token":"\#(code)"}"#)
                    .status == .ok)
            #expect(try await client.send(.post, "/magiclink", json: #"{"email":"bad"}"#).errorCode == "email_address_invalid")
        }
    }
}
