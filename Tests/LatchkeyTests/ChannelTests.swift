import Foundation
import Latchkey
import LatchkeyTesting
import Testing

/// Magic links, password reset, email and phone changes, linking and SMS codes: the exact
/// requests the SDK sends and how it reads the answers.
@Suite struct ChannelTests {
    static let smsInfo =
        #"{"message_id":"SM1","channel":"sms","sent_to":"+•••••••4567","code_length":6,"expires_in":300,"resend_after":60,"max_attempts":5}"#

    @Test func magicLinkAndResetAsk() async throws {
        let transport = MockTransport()
        await transport.respond(to: "POST", path: "/otp", json: "{}")
        await transport.respond(to: "POST", path: "/recover", json: "{}")
        let auth = try await Fixtures.client(transport: transport, flowType: .pkce)
        let redirect = URL(string: "myapp://auth-callback")!
        _ = try await auth.signInWithMagicLink(email: "ada@example.com", redirectTo: redirect)
        let link = try #require(await transport.requests.first)
        #expect(link.query["redirect_to"] == "myapp://auth-callback")
        #expect(link.json?["email"] == "ada@example.com")
        #expect(link.json?["code_challenge_method"] == "s256")
        #expect(link.json?["code_challenge"]?.stringValue?.count == 43)

        let reset = try await auth.resetPassword(email: "ada@example.com", redirectTo: redirect)
        let recover = try #require(await transport.requests.last)
        #expect(recover.path == "/recover")
        #expect(recover.json?["email"] == "ada@example.com")
        #expect(recover.json?["code_challenge"] != nil)
        #expect(reset.email == "ada@example.com")
    }

    @Test func aResetCodeSignsInAsPasswordRecoveryThenSetsThePassword() async throws {
        let transport = MockTransport()
        await transport.respond(to: "POST", path: "/recover", json: "{}")
        await transport.respond(to: "POST", path: "/verify", json: Fixtures.sessionJSON())
        await transport.respond(to: "PUT", path: "/user", json: Fixtures.userJSON())
        let auth = try await Fixtures.client(transport: transport)
        var events = auth.authStateChanges.makeAsyncIterator()
        _ = await events.next()  // initial
        let state = try await auth.resetPassword(email: "ada@example.com")
        try await state.submit(code: "123456")
        #expect(await transport.requests[1].json == ["type": "recovery", "email": "ada@example.com", "token": "123456"])
        #expect(await events.next()?.event == .passwordRecovery)
        try await auth.updatePassword("a brand new passphrase", nonce: "654321")
        #expect(await transport.requests[2].json == ["password": "a brand new passphrase", "nonce": "654321"])
        #expect(await transport.requests[2].headers["Authorization"] == "Bearer access-1")
    }

    @Test func smsCodesUseTheSameTypedStates() async throws {
        let transport = MockTransport()
        await transport.respond(to: "POST", path: "/otp", json: Self.smsInfo)
        await transport.respond(
            to: "POST", path: "/verify", status: 403,
            json: Fixtures.error("otp_expired", "Token has expired or is invalid", extra: #","reason":"invalid","attempts_remaining":4"#))
        await transport.respond(to: "POST", path: "/verify", json: Fixtures.sessionJSON())
        let auth = try await Fixtures.client(transport: transport)
        let state = try await auth.requestSMSCode(phone: "+15551234567", channel: .whatsapp)
        #expect(await transport.requests[0].json == ["phone": "+15551234567", "create_user": true, "channel": "whatsapp"])
        #expect(state.phone == "+15551234567")
        #expect(state.channel == .sms)
        #expect(state.sentTo == "+•••••••4567")
        do {
            try await state.submit(code: "000000")
            Issue.record("expected a wrong-code error")
        } catch let error as LatchkeyError where error.isInvalidCode {
            let retry = try #require(error.retryState)
            #expect(retry.attemptsRemaining == 4)
            try await retry.submit(code: "123456")
        }
        #expect(await transport.requests.last?.json == ["type": "sms", "phone": "+15551234567", "token": "123456"])
        _ = try await auth.signUpWithSMSCode(phone: "+15551234567")
    }

    @Test func phonePasswordCallsAndTheirErrors() async throws {
        let transport = MockTransport()
        await transport.respond(to: "POST", path: "/signup", json: Fixtures.userJSON(email: "", confirmed: false))
        await transport.respond(to: "POST", path: "/token", status: 400, json: Fixtures.error("phone_not_confirmed", "Phone not confirmed"))
        await transport.respond(to: "POST", path: "/verify", json: Fixtures.sessionJSON())
        await transport.respond(
            to: "POST", path: "/otp", status: 400,
            json: Fixtures.error("sms_send_failed", "Error sending SMS: the SMS provider refused the message"))
        let auth = try await Fixtures.client(transport: transport)
        let signedUp = try await auth.signUp(phone: "+15551234567", password: "correct horse battery staple")
        #expect(signedUp.session == nil)
        #expect(
            await transport.requests[0].json == ["phone": "+15551234567", "password": "correct horse battery staple", "channel": "sms"])
        await #expect { try await auth.signIn(phone: "+15551234567", password: "x") } throws: {
            ($0 as? LatchkeyError)?.isPhoneNotConfirmed == true
        }
        #expect(await transport.requests[1].json == ["phone": "+15551234567", "password": "x"])
        try await auth.verifyPhone(phone: "+15551234567", code: "111222")
        #expect(await transport.requests[2].json == ["type": "sms", "phone": "+15551234567", "token": "111222"])
        await #expect { try await auth.requestSMSCode(phone: "+15551234567") } throws: { ($0 as? LatchkeyError)?.isSMSSendFailed == true }
    }

    @Test func emailChangeReportsEachConfirmation() async throws {
        let transport = MockTransport()
        let pendingUser = Fixtures.userJSON().replacingOccurrences(of: #""phone":"""#, with: #""phone":"","new_email":"new@example.com""#)
        await transport.respond(to: "PUT", path: "/user", json: pendingUser)
        await transport.respond(
            to: "POST", path: "/verify",
            json: #"{"msg":"Confirmation link accepted. Please proceed to confirm link sent to the other email","code":"200"}"#)
        await transport.respond(to: "POST", path: "/verify", json: Fixtures.sessionJSON(access: "access-2"))
        let auth = try await Fixtures.client(transport: transport, stored: try Fixtures.session(), flowType: .pkce)
        let user = try await auth.changeEmail(to: "new@example.com")
        #expect(user.newEmail == "new@example.com")
        let change = try #require(await transport.requests.first)
        #expect(change.json?["email"] == "new@example.com")
        #expect(change.json?["code_challenge"] != nil)
        guard case .waitingForOtherAddress = try await auth.confirmEmailChange(email: "new@example.com", code: "111111") else {
            Issue.record("expected the half-way answer")
            return
        }
        guard case .completed(let session) = try await auth.confirmEmailChange(email: "ada@example.com", code: "222222") else {
            Issue.record("expected the change to complete")
            return
        }
        #expect(session.accessToken == "access-2")
        #expect(await transport.requests.last?.json == ["type": "email_change", "email": "ada@example.com", "token": "222222"])
    }

    @Test func linkingAPhoneOrAnEmail() async throws {
        let transport = MockTransport()
        let pending = Fixtures.userJSON().replacingOccurrences(of: #""phone":"""#, with: #""phone":"","new_phone":"15559998888""#)
        await transport.respond(to: "PUT", path: "/user", json: pending)
        await transport.respond(to: "POST", path: "/verify", json: Fixtures.sessionJSON(access: "access-linked"))
        let auth = try await Fixtures.client(transport: transport, stored: try Fixtures.session())
        let state = try await auth.link(phone: "+15559998888")
        #expect(await transport.requests[0].json == ["phone": "+15559998888", "channel": "sms"])
        #expect(state.phone == "+15559998888")
        try await state.submit(code: "333444")
        #expect(await transport.requests[1].json == ["type": "phone_change", "phone": "+15559998888", "token": "333444"])
        // The stored user has an email, so linking one is a change instead.
        await #expect(throws: LatchkeyError.self) { try await auth.link(email: "second@example.com") }
    }

    @Test func linksReportRecoveryAndHalfwayEmailChanges() async throws {
        let transport = MockTransport()
        await transport.respond(to: "GET", path: "/user", json: Fixtures.userJSON())
        let auth = try await Fixtures.client(transport: transport)
        var events = auth.authStateChanges.makeAsyncIterator()
        _ = await events.next()
        let recovery = URL(string: "myapp://cb#access_token=a&refresh_token=r&expires_in=3600&token_type=bearer&type=recovery")!
        try await auth.session(from: recovery)
        #expect(await events.next()?.event == .passwordRecovery)
        let halfway = URL(string: "myapp://cb#message=Confirmation%20link%20accepted&sb=")!
        await #expect { try await auth.session(from: halfway) } throws: { ($0 as? LatchkeyError)?.isEmailChangePending == true }
    }

    @Test func aSessionTheServerEndedIsForgottenOnTheNextCall() async throws {
        let transport = MockTransport()
        await transport.respond(
            to: "GET", path: "/user", status: 403,
            json: Fixtures.error("session_not_found", "Session from session_id claim in JWT does not exist"))
        let auth = try await Fixtures.client(transport: transport, stored: try Fixtures.session())
        var events = auth.authStateChanges.makeAsyncIterator()
        _ = await events.next()
        await #expect { try await auth.user() } throws: { ($0 as? LatchkeyError)?.isSessionMissing == true }
        #expect(await events.next()?.event == .signedOut)
        #expect(await auth.currentSession == nil)
    }
}
