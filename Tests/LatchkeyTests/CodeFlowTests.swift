import Foundation
import Latchkey
import LatchkeyTesting
import Testing

@Suite struct CodeFlowTests {
    static let otpInfo =
        #"{"channel":"email","sent_to":"a***@example.com","code_length":8,"expires_in":600,"resend_after":60,"max_attempts":5}"#

    @Test func codeRequiredCarriesTheServersRules() async throws {
        let transport = MockTransport()
        await transport.respond(to: "POST", path: "/otp", json: Self.otpInfo)
        let auth = try await Fixtures.client(transport: transport)
        let before = Date()
        let state = try await auth.signInWithEmailCode(email: "ada@example.com")
        #expect(state.sentTo == "a***@example.com")
        #expect(state.codeLength == 8)
        #expect(state.channel == .email)
        #expect(state.attemptsRemaining == 5)
        #expect(state.expiresAt.timeIntervalSince(before) >= 599)
        #expect(state.resendAvailableAt.timeIntervalSince(before) >= 59)
        #expect(await transport.requests.first?.json == ["email": "ada@example.com", "create_user": true])
    }

    @Test func aGoTrueServersEmptyAnswerGetsDefaults() async throws {
        let transport = MockTransport()
        await transport.respond(to: "POST", path: "/otp", json: "{}")
        let auth = try await Fixtures.client(transport: transport)
        let state = try await auth.signInWithEmailCode(email: "ada@example.com")
        #expect(state.sentTo == "a***@example.com")
        #expect(state.codeLength == 6)
        #expect(state.attemptsRemaining == nil)
    }

    @Test func wrongCodeThrowsWithTheStateToRetryFrom() async throws {
        let transport = MockTransport()
        await transport.respond(to: "POST", path: "/otp", json: Self.otpInfo)
        await transport.respond(
            to: "POST", path: "/verify", status: 403,
            json: Fixtures.error("otp_expired", "Token has expired or is invalid", extra: #","reason":"invalid","attempts_remaining":4"#))
        await transport.respond(to: "POST", path: "/verify", json: Fixtures.sessionJSON())
        let auth = try await Fixtures.client(transport: transport)
        let state = try await auth.signInWithEmailCode(email: "ada@example.com")
        do {
            try await state.submit(code: "000000")
            Issue.record("expected a wrong-code error")
        } catch let error as LatchkeyError {
            #expect(error.isInvalidCode)
            #expect(!error.isCodeExpired)
            let retry = try #require(error.retryState)
            #expect(retry.attemptsRemaining == 4)
            let session = try await retry.submit(code: "123456")
            #expect(session.accessToken == "access-1")
        }
        #expect(await transport.requests.last?.json == ["type": "email", "email": "ada@example.com", "token": "123456"])
    }

    @Test func expiredCodesOfferNoRetry() async throws {
        let transport = MockTransport()
        await transport.respond(to: "POST", path: "/otp", json: Self.otpInfo)
        await transport.respond(
            to: "POST", path: "/verify", status: 403, json: Fixtures.error("otp_expired", "expired", extra: #","reason":"expired""#))
        let auth = try await Fixtures.client(transport: transport)
        let state = try await auth.signInWithEmailCode(email: "ada@example.com")
        do {
            try await state.submit(code: "123456")
        } catch let error as LatchkeyError {
            #expect(error.isCodeExpired)
            #expect(error.retryState == nil)
        }
    }

    @Test func intentsAskTheServerAndMapGoTruesAnswer() async throws {
        let transport = MockTransport()
        await transport.respond(to: "POST", path: "/otp", status: 422, json: Fixtures.error("otp_disabled", "Signups not allowed for otp"))
        let auth = try await Fixtures.client(transport: transport)
        do {
            _ = try await auth.signInWithEmailCode(email: "nobody@example.com", createUser: false)
        } catch let error as LatchkeyError {
            #expect(error.isUserNotFound)
        }
        #expect(await transport.requests.first?.json == ["email": "nobody@example.com", "create_user": false, "intent": "signin"])
        let signUp = MockTransport()
        await signUp.respond(to: "POST", path: "/otp", status: 422, json: Fixtures.error("user_already_exists", "User already registered"))
        do {
            let client = try await Fixtures.client(transport: signUp)
            _ = try await client.signUpWithEmailCode(email: "ada@example.com", data: ["n": 1])
        } catch let error as LatchkeyError {
            #expect(error.isUserAlreadyExists)
        }
        #expect(await signUp.requests.first?.json?["intent"] == "signup")
    }

    @Test func observableFlowReportsEveryStep() async throws {
        let transport = MockTransport()
        await transport.respond(to: "POST", path: "/otp", json: Self.otpInfo)
        await transport.respond(
            to: "POST", path: "/verify", status: 403,
            json: Fixtures.error("otp_expired", "wrong", extra: #","reason":"invalid","attempts_remaining":4"#))
        await transport.respond(to: "POST", path: "/verify", json: Fixtures.sessionJSON())
        let auth = try await Fixtures.client(transport: transport)
        let flow = auth.emailCodeFlow()
        // Two observers (a view and its re-mounted twin) each see every state.
        let observers = [flow.states, flow.states].map { stream in
            Task {
                var names: [String] = []
                for await state in stream {
                    switch state {
                    case .initial: names.append("initial")
                    case .sendingCode: names.append("sending")
                    case .awaitingCodeInput: names.append("awaiting")
                    case .submittingCode: names.append("submitting")
                    case .incorrectCode(let retry): names.append("incorrect(\(retry.attemptsRemaining ?? -1))")
                    case .done: names.append("done")
                    case .sendCodeFailure, .signInError: names.append("error")
                    }
                }
                return names
            }
        }
        try await flow.sendCode(to: "ada@example.com")
        await #expect(throws: LatchkeyError.self) { try await flow.submit(code: "000000") }
        try await flow.submit(code: "123456")
        for observer in observers {
            #expect(await observer.value == ["initial", "sending", "awaiting", "submitting", "incorrect(4)", "submitting", "done"])
        }
        // A late observer gets the state now, and the stream ends with the flow.
        var late: [CodeFlowState] = []
        for await state in flow.states { late.append(state) }
        #expect(late.count == 1)
        if case .done(let session) = late.first { #expect(session.accessToken == "access-1") } else { Issue.record("not done") }
        #expect(flow.state == late.first)
    }
}
