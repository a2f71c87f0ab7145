import Foundation
import Latchkey
import LatchkeyTesting
import Testing

/// What a refused code tells the app: exactly one of ``LatchkeyError/isInvalidCode`` (with a
/// retry state), ``LatchkeyError/isCodeExpired`` and ``LatchkeyError/isCodeAttemptsExhausted``,
/// from Latchkey's answers and from GoTrue's, which do not say why.
@Suite struct CodeContractTests {
    struct Answer: Sendable, CustomStringConvertible {
        let name: String
        /// `expires_in` of the code request's answer.
        let expiresIn: Int
        let body: String
        let expected: CodeRefusal
        let attempts: Int?
        var description: String { name }
    }

    static let answers: [Answer] = [
        Answer(
            name: "Latchkey: wrong, 4 left", expiresIn: 600,
            body: Fixtures.error("otp_expired", "Token has expired or is invalid", extra: #","reason":"invalid","attempts_remaining":4"#),
            expected: .invalid, attempts: 4),
        Answer(
            name: "Latchkey: the last wrong try", expiresIn: 600,
            body: Fixtures.error("otp_expired", "Token has expired or is invalid", extra: #","reason":"exhausted","attempts_remaining":0"#),
            expected: .exhausted, attempts: 0),
        Answer(
            name: "Latchkey: expired", expiresIn: 600,
            body: Fixtures.error("otp_expired", "Token has expired or is invalid", extra: #","reason":"expired""#),
            expected: .expired, attempts: nil),
        Answer(
            name: "GoTrue, before the code's expiry", expiresIn: 600,
            body: Fixtures.error("otp_expired", "Token has expired or is invalid"), expected: .invalid, attempts: nil),
        Answer(
            name: "GoTrue, after the code's expiry", expiresIn: 0,
            body: Fixtures.error("otp_expired", "Token has expired or is invalid"), expected: .expired, attempts: nil),
    ]

    @Test(arguments: answers)
    func exactlyOnePredicateHolds(_ answer: Answer) async throws {
        let transport = MockTransport()
        await transport.respond(
            to: "POST", path: "/otp",
            json: #"{"channel":"email","sent_to":"a***@example.com","code_length":6,"expires_in":\#(answer.expiresIn),"resend_after":60}"#)
        await transport.respond(to: "POST", path: "/verify", status: 403, json: answer.body)
        let auth = try await Fixtures.client(transport: transport)
        let state = try await auth.signInWithEmailCode(email: "ada@example.com")
        let error = try #require(await #expect(throws: LatchkeyError.self) { try await state.submit(code: "000000") })
        #expect(error.codeRefusal == answer.expected)
        #expect(error.attemptsRemaining == answer.attempts)
        let flags = [error.isInvalidCode, error.isCodeExpired, error.isCodeAttemptsExhausted]
        #expect(flags.filter { $0 }.count == 1)
        #expect(error.isInvalidCode == (answer.expected == .invalid))
        #expect(error.isCodeExpired == (answer.expected == .expired))
        #expect(error.isCodeAttemptsExhausted == (answer.expected == .exhausted))
        #expect((error.retryState != nil) == error.isInvalidCode)
        #expect(error.retryState?.attemptsRemaining == (answer.expected == .invalid ? answer.attempts : nil))
    }

    /// The README's pattern, run to the end: retries while the server allows, then stops.
    @Test func theReadmeRetryLoopEndsWhenTheCodeIsUsedUp() async throws {
        let transport = MockTransport()
        await transport.respond(to: "POST", path: "/otp", json: #"{"code_length":6,"expires_in":600,"max_attempts":2}"#)
        for (reason, left) in [("invalid", 1), ("exhausted", 0)] {
            await transport.respond(
                to: "POST", path: "/verify", status: 403,
                json: Fixtures.error("otp_expired", "wrong", extra: #","reason":"\#(reason)","attempts_remaining":\#(left)"#))
        }
        let auth = try await Fixtures.client(transport: transport)
        var state = try await auth.signInWithEmailCode(email: "ada@example.com")
        var tries = 0
        var outcome = ""
        while outcome.isEmpty {
            tries += 1
            do {
                try await state.submit(code: "000000")
                outcome = "signed in"
            } catch let error as LatchkeyError where error.isInvalidCode {
                if let retry = error.retryState { state = retry }
            } catch let error as LatchkeyError where error.isCodeAttemptsExhausted {
                outcome = "ask for a new code"
            }
        }
        #expect(tries == 2 && outcome == "ask for a new code")
    }

    @Test func aStateSurvivesARelaunchAsJSON() async throws {
        let transport = MockTransport()
        await transport.respond(to: "POST", path: "/otp", json: #"{"code_length":8,"expires_in":600,"resend_after":60,"max_attempts":5}"#)
        await transport.respond(to: "POST", path: "/verify", json: Fixtures.sessionJSON())
        let first = try await Fixtures.client(transport: transport)
        let state = try await first.signInWithEmailCode(email: "ada@example.com", redirectTo: URL(string: "myapp://done"))
        let saved = try JSONEncoder().encode(state)

        // The app is killed; a new process decodes the state.
        let decoded = try JSONDecoder().decode(CodeRequired.self, from: saved)
        #expect(decoded == state)
        #expect(decoded.codeLength == 8 && decoded.attemptsRemaining == 5 && decoded.email == "ada@example.com")
        let detached = await #expect(throws: LatchkeyError.self) { try await decoded.submit(code: "12345678") }
        #expect(detached?.code == .codeStateDetached)

        let relaunched = try await Fixtures.client(transport: transport)
        let session = try await relaunched.resume(decoded).submit(code: "12345678")
        #expect(session.accessToken == "access-1")
        #expect(await transport.requests.last?.json == ["type": "email", "email": "ada@example.com", "token": "12345678"])
        #expect(await relaunched.currentSession == session)
    }

    @Test func statelessVerificationsSendTheRightType() async throws {
        let transport = MockTransport()
        await transport.respond(
            to: "POST", path: "/verify", status: 403,
            json: Fixtures.error("otp_expired", "wrong", extra: #","reason":"invalid","attempts_remaining":3"#))
        for _ in 0..<4 { await transport.respond(to: "POST", path: "/verify", json: Fixtures.sessionJSON()) }
        let auth = try await Fixtures.client(transport: transport)

        // A wrong code without a kept state still gets a state to retry from.
        let error = try #require(
            await #expect(throws: LatchkeyError.self) { try await auth.verifyEmailCode(email: "ada@example.com", code: "000000") })
        let retry = try #require(error.retryState)
        #expect(error.isInvalidCode && retry.attemptsRemaining == 3 && retry.email == "ada@example.com")
        try await retry.submit(code: "123456")
        try await auth.verifySMSCode(phone: "+15551234567", code: "654321")
        try await auth.verifyEmail(email: "new@example.com", code: "111111")
        try await auth.verifyPhone(phone: "+15551234567", code: "222222")
        let bodies = await transport.requests.map(\.json)
        #expect(
            bodies == [
                ["type": "email", "email": "ada@example.com", "token": "000000"],
                ["type": "email", "email": "ada@example.com", "token": "123456"],
                ["type": "sms", "phone": "+15551234567", "token": "654321"],
                ["type": "signup", "email": "new@example.com", "token": "111111"],
                ["type": "sms", "phone": "+15551234567", "token": "222222"],
            ])
    }

    @Test func anEmailChangeConfirmationReportsTheOtherAddressAndRetriesWrongCodes() async throws {
        let transport = MockTransport()
        await transport.respond(
            to: "POST", path: "/verify", status: 403,
            json: Fixtures.error("otp_expired", "wrong", extra: #","reason":"invalid","attempts_remaining":4"#))
        await transport.respond(
            to: "POST", path: "/verify",
            json: #"{"msg":"Confirmation link accepted. Please proceed to confirm link sent to the other email","code":"200"}"#)
        await transport.respond(to: "POST", path: "/verify", json: Fixtures.sessionJSON())
        let auth = try await Fixtures.client(transport: transport)
        let error = try #require(
            await #expect(throws: LatchkeyError.self) { try await auth.confirmEmailChange(email: "new@example.com", code: "0") })
        #expect(error.isInvalidCode)
        let halfway = await #expect(throws: LatchkeyError.self) { try await error.retryState?.submit(code: "123456") }
        #expect(halfway?.isEmailChangePending == true)
        guard case .completed(let session) = try await auth.confirmEmailChange(email: "old@example.com", code: "654321") else {
            Issue.record("expected the change to complete")
            return
        }
        #expect(session.accessToken == "access-1")
        #expect(await transport.requests.map { $0.json?["type"] } == ["email_change", "email_change", "email_change"])
    }
}
