import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyCore
import LatchkeyServer
import LatchkeyStore
import NIOCore
import Testing

/// Email change with double confirmation, and reauthentication for sensitive changes.
@Suite struct EmailChangeTests {
    static let password = "correct horse battery staple"

    /// The newest message to `email` with `subject`.
    func mail(_ app: UseCases, to email: String, subject: String) async throws -> EmailMessage {
        try await app.settleOutbox()
        let messages = try await app.store.mailbox(to: email, limit: 10)
        return try #require(messages.first(where: { $0.message.subject == subject })?.message, "no '\(subject)' to \(email)")
    }

    func code(in message: EmailMessage) throws -> String {
        String(try #require(message.text.firstMatch(of: /is (\d{6,10})\./)).1)
    }

    @Test func bothAddressesConfirmThenTheAddressChanges() async throws {
        try await TestServer().run { client, app async throws in
            let session = try await client.signUpConfirmed("old@example.com", app: app)
            let change = try await client.send(.put, "/user", json: #"{"email":"New@Example.com"}"#, bearer: session.accessToken)
            #expect(change.status == .ok)
            let pending = try change.decode(User.self)
            #expect(pending.email == "old@example.com")
            #expect(pending.newEmail == "new@example.com")
            #expect(pending.emailChangeSentAt != nil)

            let toCurrent = try code(in: try await mail(app, to: "old@example.com", subject: "Confirm your email address change"))
            let toNew = try code(in: try await mail(app, to: "new@example.com", subject: "Confirm your new email address"))
            let halfway = try await client.send(
                .post, "/verify", json: #"{"type":"email_change","email":"new@example.com","token":"\#(toNew)"}"#)
            #expect(halfway.status == .ok)
            #expect(
                try halfway.decode(EmailChangePending.self)
                    == EmailChangePending(msg: "Confirmation link accepted. Please proceed to confirm link sent to the other email"))
            #expect(try await client.send(.get, "/user", bearer: session.accessToken).decode(User.self).email == "old@example.com")

            let done = try await client.send(
                .post, "/verify", json: #"{"type":"email_change","email":"old@example.com","token":"\#(toCurrent)"}"#)
            let changed = try done.decode(Session.self)
            #expect(changed.user.email == "new@example.com")
            #expect(changed.user.newEmail == nil)
            #expect(changed.user.identities?.first?.email == "new@example.com")
            #expect(changed.user.identities?.first?.identityData["email"] == "new@example.com")
            let notice = try await mail(app, to: "old@example.com", subject: "Your email address was changed")
            #expect(notice.text.contains("to new@example.com"))
            #expect(
                try await client.send(
                    .post, "/token?grant_type=password", json: #"{"email":"new@example.com","password":"\#(Self.password)"}"#
                )
                .status == .ok)
            #expect(
                try await client.send(
                    .post, "/token?grant_type=password", json: #"{"email":"old@example.com","password":"\#(Self.password)"}"#
                )
                .errorCode == "invalid_credentials")
            // Spent codes stay spent.
            #expect(
                try await client.send(.post, "/verify", json: #"{"type":"email_change","email":"new@example.com","token":"\#(toNew)"}"#)
                    .errorCode == "otp_expired")
            // The audit log has the change, with where it came from and the old address.
            let admin = try await AdminUserTests.serviceRole(app)
            let log = try await AuditLogTests.log(
                client, admin, query: "&action=email_changed,code_sent&user_id=\(session.user.id.uuidString.lowercased())")
            let changeEvent = try #require(log.first { $0.payload.action == "email_changed" })
            #expect(changeEvent.payload.traits["from"] == "old@example.com" && changeEvent.payload.actorUsername == "new@example.com")
            #expect(changeEvent.ipAddress == "127.0.0.1")
            #expect(
                log.filter { $0.payload.action == "code_sent" }.compactMap { $0.payload.traits["kind"]?.stringValue }.sorted()
                    == ["confirmation", "email_change_current", "email_change_new"])
        }
    }

    @Test func withoutSecureChangeTheNewAddressAloneConfirms() async throws {
        try await TestServer(configure: { $0.auth.secureEmailChange = false }).run { client, app async throws in
            let session = try await client.signUpConfirmed("solo@example.com", app: app)
            try await client.send(.put, "/user", json: #"{"email":"solo2@example.com"}"#, bearer: session.accessToken)
            try await app.settleOutbox()
            #expect(
                try await app.store.mailbox(to: "solo@example.com", limit: 10).allSatisfy {
                    $0.message.subject != "Confirm your email address change"
                })
            let toNew = try code(in: try await mail(app, to: "solo2@example.com", subject: "Confirm your new email address"))
            let done = try await client.send(
                .post, "/verify", json: #"{"type":"email_change","email":"solo2@example.com","token":"\#(toNew)"}"#)
            #expect(try done.decode(Session.self).user.email == "solo2@example.com")
        }
    }

    @Test func linksConfirmHalfwayThenSignIn() async throws {
        try await TestServer().run { client, app async throws in
            let session = try await client.signUpConfirmed("links@example.com", app: app)
            try await client.send(.put, "/user", json: #"{"email":"links2@example.com"}"#, bearer: session.accessToken)
            func click(_ email: String, _ subject: String) async throws -> String {
                let text = try await mail(app, to: email, subject: subject).text
                let secret = String(try #require(text.firstMatch(of: /token=([A-Za-z0-9_-]+)&type=email_change/)).1)
                // A scanner's GET changes nothing.
                #expect(try await client.send(.get, "/verify?token=\(secret)&type=email_change").status == .ok)
                let response = try await client.execute(
                    uri: "/verify", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                    body: ByteBuffer(string: "token=\(secret)&type=email_change")
                ) { $0 }
                return try #require(response.headers[.location])
            }
            let first = try await click("links2@example.com", "Confirm your new email address")
            #expect(first.contains("#message=Confirmation%20link%20accepted"))
            let second = try await click("links@example.com", "Confirm your email address change")
            #expect(second.contains("#access_token="))
            #expect(second.contains("type=email_change"))
        }
    }

    @Test func takenAddressesAndBadInputAreRefused() async throws {
        try await TestServer().run { client, app async throws in
            let first = try await client.signUpConfirmed("first@example.com", app: app)
            let second = try await client.signUpConfirmed("second@example.com", app: app)
            #expect(
                try await client.send(.put, "/user", json: #"{"email":"second@example.com"}"#, bearer: first.accessToken).errorCode
                    == "email_exists")
            #expect(
                try await client.send(.put, "/user", json: #"{"email":"not an email"}"#, bearer: first.accessToken).errorCode
                    == "email_address_invalid")
            #expect(
                try await client.send(.put, "/user", json: #"{"email":42}"#, bearer: first.accessToken).status == .badRequest)
            // Both ask for the same free address: the first to finish gets it, the other is told.
            for session in [first, second] {
                #expect(
                    try await client.send(.put, "/user", json: #"{"email":"prize@example.com"}"#, bearer: session.accessToken).status == .ok
                )
            }
            try await app.settleOutbox()
            let mails = try await app.store.mailbox(to: "prize@example.com", limit: 10).map(\.message)
            #expect(mails.count == 2)
            func finish(_ current: String, newCode: String) async throws -> TestResponse {
                let currentCode = try code(in: try await mail(app, to: current, subject: "Confirm your email address change"))
                try await client.send(.post, "/verify", json: #"{"type":"email_change","email":"\#(current)","token":"\#(currentCode)"}"#)
                return try await client.send(
                    .post, "/verify", json: #"{"type":"email_change","email":"prize@example.com","token":"\#(newCode)"}"#)
            }
            // The newest code to prize@ is second's; the one before is first's.
            let secondWins = try await finish("second@example.com", newCode: try code(in: mails[0]))
            #expect(try secondWins.decode(Session.self).user.email == "prize@example.com")
            // A wrong code is refused with the attempt counted, and nothing changes.
            let wrong = try await client.send(
                .post, "/verify", json: #"{"type":"email_change","email":"first@example.com","token":"000000"}"#)
            #expect(wrong.errorCode == "otp_expired")
            let firstLoses = try await finish("first@example.com", newCode: try code(in: mails[1]))
            #expect(firstLoses.errorCode == "email_exists" || firstLoses.errorCode == "otp_expired")
            #expect(try await app.store.user(email: "first@example.com") != nil)
        }
    }

    @Test func resendIssuesFreshCodes() async throws {
        try await TestServer().run { client, app async throws in
            let session = try await client.signUpConfirmed("again@example.com", app: app)
            try await client.send(.put, "/user", json: #"{"email":"again2@example.com"}"#, bearer: session.accessToken)
            let old = try code(in: try await mail(app, to: "again2@example.com", subject: "Confirm your new email address"))
            #expect(try await client.send(.post, "/resend", json: #"{"type":"email_change","email":"again@example.com"}"#).status == .ok)
            let fresh = try code(in: try await mail(app, to: "again2@example.com", subject: "Confirm your new email address"))
            if fresh != old {
                #expect(
                    try await client.send(
                        .post, "/verify", json: #"{"type":"email_change","email":"again2@example.com","token":"\#(old)"}"#
                    )
                    .errorCode == "otp_expired")
            }
            #expect(
                try await client.send(.post, "/verify", json: #"{"type":"email_change","email":"again2@example.com","token":"\#(fresh)"}"#)
                    .status == .ok)
        }
    }

    @Test func oldSessionsNeedANonceForSensitiveChanges() async throws {
        let time = ManualTimeSource(Date())
        try await TestServer(configure: { $0.auth.password.requireReauthentication = true }).run(time: time) { client, app async throws in
            let session = try await client.signUpConfirmed("nonce@example.com", app: app)
            // A fresh session needs none.
            #expect(try await client.send(.put, "/user", json: #"{"data":{"a":1}}"#, bearer: session.accessToken).status == .ok)
            time.advance(by: 25 * 3600)
            let refreshed = try await client.send(
                .post, "/token?grant_type=refresh_token", json: #"{"refresh_token":"\#(session.refreshToken)"}"#
            ).decode(Session.self)
            let change = #"{"password":"an entirely new passphrase"}"#
            #expect(
                try await client.send(.put, "/user", json: change, bearer: refreshed.accessToken).errorCode == "reauthentication_needed")
            #expect(
                try await client.send(.put, "/user", json: #"{"email":"elsewhere@example.com"}"#, bearer: refreshed.accessToken).errorCode
                    == "reauthentication_needed")
            let sent = try await client.send(.get, "/reauthenticate", bearer: refreshed.accessToken)
            #expect(sent.status == .ok)
            #expect(try sent.decode(OTPResponse.self).sentTo == EmailAddress.masked("nonce@example.com"))
            let nonce = try code(in: try await mail(app, to: "nonce@example.com", subject: "Confirm it is you"))
            let wrong = try await client.send(
                .put, "/user", json: #"{"password":"an entirely new passphrase","nonce":"000000"}"#, bearer: refreshed.accessToken)
            #expect(wrong.status == .unprocessableContent)
            #expect(wrong.errorCode == "reauthentication_not_valid")
            let right = try await client.send(
                .put, "/user", json: #"{"password":"an entirely new passphrase","nonce":"\#(nonce)"}"#, bearer: refreshed.accessToken)
            #expect(right.status == .ok)
            // A nonce works once.
            #expect(
                try await client.send(
                    .put, "/user", json: #"{"password":"yet another new passphrase","nonce":"\#(nonce)"}"#, bearer: refreshed.accessToken
                ).errorCode == "reauthentication_not_valid")
            #expect(try await client.send(.get, "/reauthenticate").errorCode == "no_authorization")
        }
    }
}
