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
        Case(code: "otp_expired", status: 403) { $0.isCodeExpired && $0.isInvalidCode },
        Case(code: "over_request_rate_limit", status: 429) { $0.isRateLimited && $0.retryAfter == 30 },
        Case(code: "over_email_send_rate_limit", status: 429) { $0.isRateLimited },
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
}
