import Foundation
import Latchkey
import LatchkeyTesting
import Testing

@Suite struct RequestTests {
    @Test func signUpSendsGoTruesRequestAndReportsVerification() async throws {
        let transport = MockTransport()
        await transport.respond(to: "POST", path: "/signup", json: Fixtures.userJSON(confirmed: false))
        let auth = try await Fixtures.client(transport: transport)
        let result = try await auth.signUp(
            email: "ada@example.com", password: "correct horse battery staple", data: ["name": "Ada"],
            redirectTo: URL(string: "myapp://verify"))
        #expect(result.action == "verify_email")
        #expect(result.session == nil)
        let request = try #require(await transport.requests.first)
        #expect(request.method == "POST")
        #expect(request.path == "/signup")
        #expect(request.query == ["redirect_to": "myapp://verify"])
        #expect(request.headers["X-Supabase-Api-Version"] == "2024-01-01")
        #expect(request.headers["Content-Type"]?.hasPrefix("application/json") == true)
        #expect(request.json?["email"] == "ada@example.com")
        #expect(request.json?["password"] == "correct horse battery staple")
        #expect(request.json?["data"] == ["name": "Ada"])
        #expect(await auth.currentSession == nil)
    }

    @Test func signUpWithAutoconfirmSignsIn() async throws {
        let transport = MockTransport()
        await transport.respond(to: "POST", path: "/signup", json: Fixtures.sessionJSON())
        let auth = try await Fixtures.client(transport: transport)
        let result = try await auth.signUp(email: "ada@example.com", password: "correct horse battery staple")
        #expect(result.action == nil)
        #expect(await auth.currentSession?.accessToken == "access-1")
    }

    @Test func passwordSignInAndVerificationRequests() async throws {
        let transport = MockTransport()
        await transport.respond(to: "POST", path: "/token", json: Fixtures.sessionJSON())
        await transport.respond(to: "POST", path: "/verify", json: Fixtures.sessionJSON())
        await transport.respond(to: "POST", path: "/resend", json: "{}")
        let auth = try await Fixtures.client(transport: transport)
        try await auth.signIn(email: "ada@example.com", password: "pw")
        try await auth.requestEmailVerification(email: "ada@example.com")
        try await auth.verifyEmail(token: "link-secret")
        try await auth.verifyEmail(email: "ada@example.com", code: "123456")
        let requests = await transport.requests
        #expect(requests[0].query == ["grant_type": "password"])
        #expect(requests[0].json == ["email": "ada@example.com", "password": "pw"])
        #expect(requests[1].json == ["type": "signup", "email": "ada@example.com"])
        #expect(requests[2].json == ["type": "signup", "token_hash": "link-secret"])
        #expect(requests[3].json == ["type": "signup", "email": "ada@example.com", "token": "123456"])
    }

    @Test func updateUserSendsNullsToDeleteAndSignOutScopes() async throws {
        let transport = MockTransport()
        await transport.respond(to: "PUT", path: "/user", json: Fixtures.userJSON())
        await transport.respond(to: "POST", path: "/logout", MockTransport.Reply(status: 204, body: Data()))
        let auth = try await Fixtures.client(transport: transport, stored: try Fixtures.session())
        try await auth.updateUser(UserAttributes(data: ["team": "core", "old": .null]))
        let update = try #require(await transport.requests.first)
        #expect(update.headers["Authorization"] == "Bearer access-1")
        #expect(update.json?["data"] == ["team": "core", "old": .null])
        try await auth.signOut(scope: .local)
        #expect(await transport.requests.last?.query == ["scope": "local"])
        #expect(await auth.currentSession == nil)
    }

    @Test func signOutIsLocalFirstAndToleratesAGoneSession() async throws {
        let transport = MockTransport()
        await transport.respond(to: "POST", path: "/logout", status: 403, json: Fixtures.error("session_not_found"))
        let auth = try await Fixtures.client(transport: transport, stored: try Fixtures.session())
        try await auth.signOut()
        #expect(await auth.currentSession == nil)
        await transport.setNetworkDown(true)
        let offline = try await Fixtures.client(transport: transport, stored: try Fixtures.session())
        try await offline.signOut()
        #expect(await offline.currentSession == nil)
    }
}
