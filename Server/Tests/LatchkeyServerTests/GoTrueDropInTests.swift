import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyCore
import LatchkeyServer
import LatchkeyStore
import Testing

/// A GoTrue deployment's configuration starts Latchkey, and the paths GoTrue answers without the
/// feature behind them answer as GoTrue's do (issue #17).
@Suite struct GoTrueDropInTests {
    /// GoTrue's environment with `GOTRUE_SMS_PROVIDER=twilio` and empty credentials starts; the
    /// configuration says what is missing, once, and every SMS then fails as GoTrue's does (500,
    /// "Unable to get SMS provider") without leaving a usable code.
    @Test func twilioWithoutCredentialsStartsAndFailsEachSMS() async throws {
        let environment = [
            "GOTRUE_SMS_PROVIDER": "twilio", "GOTRUE_SMS_TWILIO_ACCOUNT_SID": "", "GOTRUE_SMS_TWILIO_AUTH_TOKEN": "",
            "GOTRUE_SMS_TWILIO_MESSAGE_SERVICE_SID": "",
        ]
        let loaded = try ServerConfiguration.load(environment: environment)
        #expect(loaded.twilio == nil)
        #expect(loaded.unusableSMSProvider == "twilio")
        #expect(loaded.warnings.count == 1)
        #expect(loaded.warnings.first?.contains("sms-twilio-account-sid") == true)
        // Complete credentials: no warning.
        let complete = try ServerConfiguration.load(environment: [
            "GOTRUE_SMS_PROVIDER": "twilio", "GOTRUE_SMS_TWILIO_ACCOUNT_SID": "AC1", "GOTRUE_SMS_TWILIO_AUTH_TOKEN": "t",
            "GOTRUE_SMS_TWILIO_MESSAGE_SERVICE_SID": "MG1",
        ])
        #expect(complete.twilio != nil && complete.warnings.isEmpty && complete.unusableSMSProvider == nil)

        try await TestServer(configure: { $0.unusableSMSProvider = "twilio" }).run { client, app async throws in
            let response = try await client.send(.post, "/otp", json: #"{"phone":"+15551234567"}"#)
            #expect(response.status == .internalServerError)
            let body = try response.decode(APIErrorBody.self)
            #expect(body.code == .unexpectedFailure)
            #expect(body.message == "Unable to get SMS provider")
            // Nothing went to the dev mailbox instead.
            #expect(try await app.store.mailbox(to: "15551234567", limit: 5).isEmpty)
            // Email sign-ins are unaffected.
            #expect(try await client.send(.post, "/otp", json: #"{"email":"mail@example.com"}"#).status == .ok)
        }
    }

    /// `/sso` and its SAML paths answer 404 `saml_provider_disabled`, "SAML 2.0 is disabled".
    @Test func ssoAnswersThatSAMLIsDisabled() async throws {
        try await TestServer().run { client, _ async throws in
            for (method, path) in [(HTTPRequest.Method.post, "/sso"), (.get, "/sso/saml/metadata"), (.post, "/sso/saml/acs")] {
                let response = try await client.send(method, path, json: method == .post ? #"{"domain":"example.com"}"# : nil)
                #expect(response.status == .notFound, "\(path)")
                let body = try response.decode(APIErrorBody.self)
                #expect(body.code == .samlProviderDisabled, "\(path)")
                #expect(body.message == "SAML 2.0 is disabled", "\(path)")
                #expect(response.headers[HTTPField.Name("x-sb-error-code")!] == "saml_provider_disabled")
            }
        }
    }

    /// With the phone provider off, `/verify` still checks the number first (GoTrue's order): a bad
    /// number is `validation_failed` (400), a good unknown one `otp_expired` (403), and `/otp`
    /// with a phone says the provider is off.
    @Test func phoneVerificationChecksTheNumberWhenPhoneIsOff() async throws {
        try await TestServer(configure: { $0.auth.sms.enabled = false }).run { client, _ async throws in
            let bad = try await client.send(.post, "/verify", json: #"{"type":"sms","phone":"12-34","token":"123456"}"#)
            #expect(bad.status == .badRequest)
            #expect(try bad.decode(APIErrorBody.self).message == "Invalid phone number format (E.164 required)")
            let unknown = try await client.send(.post, "/verify", json: #"{"type":"sms","phone":"+15551234567","token":"123456"}"#)
            #expect(unknown.status == .forbidden)
            #expect(unknown.errorCode == "otp_expired")
            let otp = try await client.send(.post, "/otp", json: #"{"phone":"+15551234567"}"#)
            #expect(otp.errorCode == "phone_provider_disabled")
        }
    }
}
