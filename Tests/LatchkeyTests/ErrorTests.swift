import Foundation
import Latchkey
import LatchkeyTesting
import Testing

@Suite struct ErrorTests {
    struct Case: Sendable, CustomStringConvertible {
        let code: String
        let status: Int
        let check: @Sendable (LatchkeyError) -> Bool
        var description: String { code }
    }

    static let cases: [Case] = [
        Case(code: "invalid_credentials", status: 400) { $0.isInvalidCredentials },
        Case(code: "email_not_confirmed", status: 400) { $0.isEmailNotConfirmed },
        Case(code: "user_already_exists", status: 422) { $0.isUserAlreadyExists },
        Case(code: "email_exists", status: 422) { $0.isUserAlreadyExists },
        Case(code: "user_not_found", status: 422) { $0.isUserNotFound },
        Case(code: "email_address_invalid", status: 400) { $0.isInvalidUsername },
        Case(code: "otp_expired", status: 403) { $0.isCodeExpired && !$0.isInvalidCode && !$0.isCodeAttemptsExhausted },
        Case(code: "over_request_rate_limit", status: 429) { $0.isRateLimited && $0.retryAfter == 30 },
        Case(code: "over_email_send_rate_limit", status: 429) { $0.isRateLimited },
        Case(code: "weak_password", status: 422) { $0.isWeakPassword },
        Case(code: "signup_disabled", status: 422) { $0.code == .signupDisabled },
        Case(code: "otp_disabled", status: 422) { $0.code == .otpDisabled },
        Case(code: "user_banned", status: 400) { $0.code == .userBanned },
        Case(code: "validation_failed", status: 400) { $0.code == .validationFailed },
        Case(code: "bad_json", status: 400) { $0.code == .badJSON },
        Case(code: "request_entity_too_large", status: 413) { $0.code == .requestEntityTooLarge },
        Case(code: "same_password", status: 422) { $0.code == .samePassword },
        Case(code: "session_not_found", status: 403) { $0.code == .sessionNotFound },
        Case(code: "bad_jwt", status: 403) { $0.code == .badJWT },
        Case(code: "no_authorization", status: 401) { $0.code == .noAuthorization },
        Case(code: "not_admin", status: 403) { $0.code == .notAdmin },
        Case(code: "flow_state_not_found", status: 404) { $0.code == .flowStateNotFound },
        Case(code: "flow_state_expired", status: 422) { $0.code == .flowStateExpired },
        Case(code: "bad_code_verifier", status: 400) { $0.code == .badCodeVerifier },
        Case(code: "unexpected_failure", status: 500) { $0.code == .unexpectedFailure },
        Case(code: "a_code_from_the_future", status: 400) { $0.code.rawValue == "a_code_from_the_future" },
    ]

    @Test(arguments: cases)
    func everyServerCodeMapsToItsCheck(testCase: Case) async throws {
        let transport = MockTransport()
        await transport.respond(
            to: "POST", path: "/token",
            MockTransport.Reply(
                status: testCase.status,
                headers: ["Content-Type": "application/json", "X-Supabase-Api-Version": "2024-01-01", "Retry-After": "30"],
                body: Data(Fixtures.error(testCase.code, "Readable message").utf8)))
        let auth = try await Fixtures.client(transport: transport)
        do {
            try await auth.signIn(email: "a@example.com", password: "pw")
            Issue.record("expected an error")
        } catch let error as LatchkeyError {
            #expect(testCase.check(error), "\(error)")
            #expect(error.status == testCase.status)
            #expect(error.localizedDescription == "Readable message")
        }
    }

    @Test func legacyDialectAndWeakPasswordReasons() async throws {
        let transport = MockTransport()
        await transport.respond(
            to: "POST", path: "/signup",
            MockTransport.Reply(
                status: 422,
                body: Data(#"{"code":422,"error_code":"weak_password","msg":"Too short","weak_password":{"reasons":["length"]}}"#.utf8)))
        let auth = try await Fixtures.client(transport: transport)
        await #expect(throws: LatchkeyError.self) { try await auth.signUp(email: "a@example.com", password: "x") }
        do {
            _ = try await auth.signUp(email: "a@example.com", password: "x")
        } catch let error as LatchkeyError {
            #expect(error.isWeakPassword)
            #expect(error.weakPasswordReasons == [.length])
            #expect(error.message == "Too short")
        }
    }

    @Test func networkFailuresAndOAuthErrors() async throws {
        let transport = MockTransport()
        await transport.respond(
            to: "POST", path: "/token",
            MockTransport.Reply(status: 400, body: Data(#"{"error":"invalid_request","error_description":"refresh_token required"}"#.utf8)))
        let auth = try await Fixtures.client(transport: transport)
        do {
            try await auth.signIn(email: "a@example.com", password: "pw")
        } catch let error as LatchkeyError {
            #expect(error.code == "invalid_request")
        }
        await transport.setNetworkDown(true)
        do {
            try await auth.signIn(email: "a@example.com", password: "pw")
        } catch let error as LatchkeyError {
            #expect(error.isNetworkError)
        }
    }

    /// Issue #36, defect 8: a request whose task is cancelled ends with `CancellationError`, not
    /// `network_error` (which an app would show, or retry).
    @Test func aCancelledRequestIsACancellationNotANetworkError() async throws {
        let transport = MockTransport()
        await transport.respond(to: "POST", path: "/token", json: Fixtures.sessionJSON())
        await transport.setDelay(.seconds(60))
        let auth = try await Fixtures.client(transport: transport)
        let signIn = Task { try await auth.signIn(email: "a@example.com", password: "pw") }
        while await transport.requests.isEmpty { await Task.yield() }
        signIn.cancel()
        await #expect(throws: CancellationError.self) { try await signIn.value }
        #expect(await auth.currentSession == nil)
    }

    @Test func aBadGatewayIsANetworkErrorAndKeepsTheSession() async throws {
        let transport = MockTransport()
        await transport.respond(to: "POST", path: "/token", MockTransport.Reply(status: 503, body: Data("<html>busy</html>".utf8)))
        let expired = try Fixtures.session(expiresAt: Int(Date().timeIntervalSince1970) - 5)
        let auth = try await Fixtures.client(transport: transport, stored: expired)
        do {
            _ = try await auth.session()
        } catch let error as LatchkeyError {
            #expect(error.isNetworkError)
            #expect(error.status == 503)
        }
        #expect(await auth.currentSession != nil)
    }

    @Test func sessionEndingCodesSignOutAndNothingElseDoes() async throws {
        for code in ["session_not_found", "session_expired", "refresh_token_not_found", "refresh_token_already_used"] {
            let transport = MockTransport()
            await transport.respond(to: "POST", path: "/token", status: 400, json: Fixtures.error(code))
            let auth = try await Fixtures.client(transport: transport, stored: try Fixtures.session())
            await #expect(throws: LatchkeyError.self) { try await auth.refreshSession() }
            #expect(await auth.currentSession == nil, "\(code) should sign out")
        }
        for code in ["over_request_rate_limit", "unexpected_failure", "validation_failed"] {
            let transport = MockTransport()
            await transport.respond(to: "POST", path: "/token", status: 400, json: Fixtures.error(code))
            let auth = try await Fixtures.client(transport: transport, stored: try Fixtures.session())
            await #expect(throws: LatchkeyError.self) { try await auth.refreshSession() }
            #expect(await auth.currentSession != nil, "\(code) should keep the session")
        }
    }
}
