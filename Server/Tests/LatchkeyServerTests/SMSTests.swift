import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyCore
import LatchkeyDelivery
import LatchkeyServer
import LatchkeyStore
import Testing

/// Phone numbers: sign-up, sign-in and change by SMS code; delivery through Twilio's API (a
/// local stand-in that records the exact request) or the dev mailbox; test numbers.
@Suite struct SMSTests {
    static let password = "correct horse battery staple"

    /// What the fake Twilio recorded of one request.
    struct TwilioRequest: Decodable {
        var path: String
        var authorization: String?
        var contentType: String?
        var form: [String: String]
    }

    /// The code in the newest dev-mailbox SMS to `phone`.
    func smsCode(_ app: UseCases, to phone: String) async throws -> String {
        let text = try #require(try await app.store.mailbox(to: phone, limit: 1).first?.message.text)
        return String(try #require(text.firstMatch(of: /code is (\d{6,10})/)).1)
    }

    @Test func phoneSignUpConfirmsByCodeThenSignsInWithThePassword() async throws {
        try await TestServer().run { client, app async throws in
            let signUp = try await client.send(.post, "/signup", json: #"{"phone":"+1 555 123 4567","password":"\#(Self.password)"}"#)
            #expect(signUp.status == .ok)
            let user = try signUp.decode(User.self)
            #expect(user.phone == "15551234567")
            #expect(user.phoneConfirmedAt == nil)
            #expect(user.identities?.first?.provider == "phone")
            #expect(
                try await client.send(
                    .post, "/token?grant_type=password", json: #"{"phone":"+15551234567","password":"\#(Self.password)"}"#
                )
                .errorCode == "phone_not_confirmed")
            let code = try await smsCode(app, to: "15551234567")
            let wrong = try await client.send(.post, "/verify", json: #"{"type":"sms","phone":"+15551234567","token":"000000"}"#)
            #expect(wrong.errorCode == "otp_expired" || code == "000000")
            let verified = try await client.send(.post, "/verify", json: #"{"type":"sms","phone":"+15551234567","token":"\#(code)"}"#)
            let session = try verified.decode(Session.self)
            #expect(session.user.phoneConfirmedAt != nil)
            #expect(session.user.email == "")
            let signIn = try await client.send(
                .post, "/token?grant_type=password", json: #"{"phone":"15551234567","password":"\#(Self.password)"}"#)
            #expect(signIn.status == .ok)
            #expect(
                try await client.send(
                    .post, "/token?grant_type=password", json: #"{"phone":"15551234567","password":"not the password at all"}"#
                )
                .errorCode == "invalid_credentials")
        }
    }

    @Test func codeSignInBySMSCreatesTheUserAndSaysWhereTheCodeWent() async throws {
        try await TestServer().run { client, app async throws in
            let sent = try await client.send(.post, "/otp", json: #"{"phone":"+447700900123"}"#)
            #expect(sent.status == .ok)
            let info = try sent.decode(OTPResponse.self)
            #expect(info.channel == "sms")
            #expect(info.sentTo?.hasSuffix("0123") == true)
            #expect(info.messageID?.hasPrefix("dev-") == true)
            let code = try await smsCode(app, to: "447700900123")
            let session = try await client.send(.post, "/verify", json: #"{"type":"sms","phone":"447700900123","token":"\#(code)"}"#)
                .decode(Session.self)
            #expect(session.user.phone == "447700900123")
            // A second request inside the cooldown is refused with the wait.
            let again = try await client.send(.post, "/otp", json: #"{"phone":"+447700900123"}"#)
            #expect(again.status == .ok)  // the test server has no cooldown; the code is replaced
            #expect(
                try await client.send(.post, "/otp", json: #"{"phone":"+447700900999","create_user":false}"#).errorCode == "otp_disabled")
        }
    }

    @Test func numbersThatAreNotE164AreRefusedBeforeAnyLookup() async throws {
        try await TestServer().run { client, app async throws in
            // GoTrue's rule exactly: one leading "+" dropped, then every space; nothing else is
            // trimmed, so a space before the "+" or a tab is a bad number.
            for bad in [
                "+0123456", "phone", "+1234567890123456", "12-34", "+", "٣٣٣٣٣٣", " +15551230000", "\\t15551230000", "++15551230000",
            ] {
                let response = try await client.send(.post, "/otp", json: #"{"phone":"\#(bad)"}"#)
                #expect(response.status == .badRequest, "\(bad)")
                #expect(try response.decode(APIErrorBody.self).message == "Invalid phone number format (E.164 required)", "\(bad)")
            }
            #expect(
                try await client.send(.post, "/signup", json: #"{"phone":"abc","password":"\#(Self.password)"}"#).errorCode
                    == "validation_failed")
            #expect(
                try await client.send(.post, "/verify", json: #"{"type":"sms","phone":"abc","token":"123456"}"#).errorCode
                    == "validation_failed")
            #expect(
                try await client.send(.post, "/otp", json: #"{"phone":"+15551230000","channel":"pigeon"}"#).errorCode == "validation_failed"
            )
            try await app.settleOutbox()
            #expect(try await app.store.mailbox(to: nil, limit: 10).isEmpty)
            #expect(try await client.send(.post, "/otp", json: #"{"phone":"+1 555 123 0001"}"#).status == .ok)
            #expect(try await client.send(.post, "/otp", json: #"{"phone":" 1555123 0002 "}"#).status == .ok)
        }
    }

    @Test func twilioGetsTheExactRequestAndItsRefusalLeavesNoUsableCode() async throws {
        let twilio = try await SMTPSink.start(["--fail", "+15550000000"], script: "twilio_fake.py")
        let server = TestServer { configuration in
            configuration.twilio = TwilioConfiguration(
                accountSID: "AC0123456789", authToken: "tok3n", sender: "+15557654321", apiURL: "http://127.0.0.1:\(twilio.port)")
        }
        try await server.run { client, app async throws in
            #expect(try await client.send(.get, "/settings").decode(ServerSettings.self).smsProvider == "twilio")
            let sent = try await client.send(.post, "/otp", json: #"{"phone":"+15551112222"}"#).decode(OTPResponse.self)
            let request = try #require(try twilio.records(TwilioRequest.self).last)
            #expect(request.path == "/2010-04-01/Accounts/AC0123456789/Messages.json")
            #expect(request.authorization == "Basic " + Data("AC0123456789:tok3n".utf8).base64EncodedString())
            #expect(request.contentType == "application/x-www-form-urlencoded")
            #expect(request.form["To"] == "+15551112222")
            #expect(request.form["From"] == "+15557654321")
            #expect(request.form["MessagingServiceSid"] == nil)
            #expect(sent.messageID?.hasPrefix("SM") == true)
            let code = String(try #require(request.form["Body"]?.firstMatch(of: /code is (\d{6})/)).1)
            #expect(
                try await client.send(.post, "/verify", json: #"{"type":"sms","phone":"15551112222","token":"\#(code)"}"#).status == .ok)

            // Twilio refuses: the caller is told, and the code that was not delivered does not work.
            let refused = try await client.send(.post, "/otp", json: #"{"phone":"+15550000000"}"#)
            #expect(refused.errorCode == "sms_send_failed")
            #expect(refused.status == .badRequest)
            let undelivered = try #require(try twilio.records(TwilioRequest.self).last)
            #expect(undelivered.form["To"] == "+15550000000")
            let lost = String(try #require(undelivered.form["Body"]?.firstMatch(of: /code is (\d{6})/)).1)
            #expect(
                try await client.send(.post, "/verify", json: #"{"type":"sms","phone":"15550000000","token":"\#(lost)"}"#).errorCode
                    == "otp_expired")
            #expect(try await app.store.mailbox(to: "15551112222", limit: 1).isEmpty)  // no dev mailbox copies
        }
    }

    @Test func messagingServicesAPIKeysAndWhatsApp() async throws {
        let twilio = try await SMTPSink.start([], script: "twilio_fake.py")
        let server = TestServer { configuration in
            configuration.twilio = TwilioConfiguration(
                accountSID: "AC42", apiKey: "SK42", apiSecret: "s3cret", sender: "MG42", apiURL: "http://127.0.0.1:\(twilio.port)")
        }
        try await server.run { client, _ async throws in
            try await client.send(.post, "/otp", json: #"{"phone":"+15553334444","channel":"whatsapp"}"#)
            let request = try #require(try twilio.records(TwilioRequest.self).last)
            #expect(request.authorization == "Basic " + Data("SK42:s3cret".utf8).base64EncodedString())
            #expect(request.form["MessagingServiceSid"] == "MG42")
            #expect(request.form["From"] == nil)
            #expect(request.form["To"] == "whatsapp:+15553334444")
        }
    }

    @Test func testNumbersUseTheirFixedCodeAndSendNothing() async throws {
        try await TestServer(configure: { $0.auth.sms.testOTPs = ["15550001111": "424242"] }).run { client, app async throws in
            #expect(try await client.send(.post, "/otp", json: #"{"phone":"+15550001111"}"#).status == .ok)
            try await app.settleOutbox()
            #expect(try await app.store.mailbox(to: "15550001111", limit: 1).isEmpty)
            let session = try await client.send(.post, "/verify", json: #"{"type":"sms","phone":"+15550001111","token":"424242"}"#)
            #expect(session.status == .ok)
        }
    }

    @Test func aSignedInUserLinksAPhoneByCode() async throws {
        try await TestServer().run { client, app async throws in
            let session = try await client.signUpConfirmed("linker@example.com", app: app)
            let pending = try await client.send(.put, "/user", json: #"{"phone":"+15559998888"}"#, bearer: session.accessToken)
            #expect(pending.status == .ok)
            #expect(try pending.decode(User.self).newPhone == "15559998888")
            #expect(try pending.decode(User.self).phone == "")
            let code = try await smsCode(app, to: "15559998888")
            let linked = try await client.send(
                .post, "/verify", json: #"{"type":"phone_change","phone":"+15559998888","token":"\#(code)"}"#
            )
            .decode(Session.self)
            #expect(linked.user.phone == "15559998888")
            #expect(linked.user.email == "linker@example.com")
            #expect(linked.user.phoneConfirmedAt != nil)
            #expect(Set(linked.user.identities?.map(\.provider) ?? []) == ["email", "phone"])
            #expect(linked.user.appMetadata["providers"] == ["email", "phone"])
            // The number is taken now.
            let other = try await client.signUpConfirmed("other@example.com", app: app)
            #expect(
                try await client.send(.put, "/user", json: #"{"phone":"15559998888"}"#, bearer: other.accessToken).errorCode
                    == "phone_exists")
            // And it signs in by SMS code too.
            try await client.send(.post, "/otp", json: #"{"phone":"+15559998888"}"#)
            let smsCode = try await smsCode(app, to: "15559998888")
            let bySMS = try await client.send(.post, "/verify", json: #"{"type":"sms","phone":"15559998888","token":"\#(smsCode)"}"#)
            #expect(try bySMS.decode(Session.self).user.id == linked.user.id)
            let log = try await AuditLogTests.log(
                client, try await AdminUserTests.serviceRole(app), query: "&user_id=\(linked.user.id.uuidString.lowercased())")
            let change = try #require(log.first { $0.payload.action == "phone_changed" })
            #expect(change.payload.traits["from"] == .null)
            #expect(
                log.filter { $0.payload.action == "login" }.compactMap { $0.payload.traits["method"]?.stringValue } == [
                    "otp", "phone_change", "otp",
                ])
        }
    }
}
