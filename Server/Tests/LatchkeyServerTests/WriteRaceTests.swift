import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyCore
import LatchkeyServer
import NIOCore
import Testing

/// Sign-ins in flight against an operator's decision (ban, new password, new address): the
/// decision that lands later wins. A sign-in that wrote first has its session ended by the
/// decision; one that would write after it is refused. Nothing a sign-in read before the decision
/// is written back over it (issue #14: a stale whole-row write used to undo a ban).
@Suite struct WriteRaceTests {
    static let password = "correct horse battery staple"

    /// A server whose password hashing is slow enough (scrypt N = 2^14) that a decision lands
    /// while the sign-ins hash.
    static func server() -> TestServer {
        TestServer { $0.auth.password.scryptLogN = 14 }
    }

    /// Sends `count` requests on connections of their own and, `delay` later, `decision`.
    static func race(
        _ client: any TestClientProtocol, _ count: Int, _ uri: String, delay: Duration = .milliseconds(15),
        json: @escaping @Sendable (Int) -> String?, decision: @Sendable () async throws -> TestResponse
    ) async throws -> (signIns: [TestClient.Response], decision: TestResponse) {
        async let signIns = client.concurrently(count, .post, uri, json: json)
        try await Task.sleep(for: delay)
        let decided = try await decision()
        return (try await signIns, decided)
    }

    /// Every session a sign-in answered with is over: its refresh token and access token are refused.
    static func expectEnded(_ answers: [TestClient.Response], _ client: any TestClientProtocol) async throws {
        for answer in answers where answer.status == .ok {
            let session = try answer.decode(Session.self)
            let refreshed = try await client.send(
                .post, "/token?grant_type=refresh_token", json: #"{"refresh_token":"\#(session.refreshToken)"}"#)
            #expect(refreshed.status != .ok, "a session signed in before the decision outlived it")
            #expect(try await client.send(.get, "/user", bearer: session.accessToken).status != .ok)
        }
    }

    /// Signs `email` up, then races six password sign-ins against the operator's change `json`.
    static func signInsAgainstOperator(
        _ email: String, change json: String, _ client: any TestClientProtocol, app: UseCases, admin: String
    ) async throws -> (user: User, signIns: [TestClient.Response], decision: TestResponse) {
        let user = try await client.signUpConfirmed(email, password: password, app: app).user
        let (signIns, decision) = try await race(client, 6, "/token?grant_type=password") { _ in
            #"{"email":"\#(email)","password":"\#(password)"}"#
        } decision: {
            try await client.send(.put, "/admin/users/\(user.id.uuidString.lowercased())", json: json, bearer: admin)
        }
        return (user, signIns, decision)
    }

    static func adminUser(_ id: UUID, _ client: any TestClientProtocol, admin: String) async throws -> User {
        try await client.send(.get, "/admin/users/\(id.uuidString.lowercased())", bearer: admin).decode(User.self)
    }

    @Test func aBanSurvivesPasswordSignInsInFlight() async throws {
        try await Self.server().run { client, app async throws in
            let admin = try await AdminUserTests.serviceRole(app)
            for round in 0..<3 {
                let (user, signIns, ban) = try await Self.signInsAgainstOperator(
                    "banned\(round)@example.com", change: #"{"ban_duration":"876000h"}"#, client, app: app, admin: admin)
                #expect(ban.status == .ok)
                #expect(try await Self.adminUser(user.id, client, admin: admin).bannedUntil != nil, "the ban was undone")
                for answer in signIns { #expect(answer.status == .ok || answer.errorCode == "user_banned") }
                try await Self.expectEnded(signIns, client)
            }
        }
    }

    @Test func anOperatorsNewPasswordSurvivesSignInsWithTheOldOne() async throws {
        try await Self.server().run { client, app async throws in
            let admin = try await AdminUserTests.serviceRole(app)
            for round in 0..<3 {
                let email = "reset\(round)@example.com"
                let (_, signIns, reset) = try await Self.signInsAgainstOperator(
                    email, change: #"{"password":"a brand new passphrase 2026"}"#, client, app: app, admin: admin)
                #expect(reset.status == .ok)
                let old = try await client.send(
                    .post, "/token?grant_type=password", json: #"{"email":"\#(email)","password":"\#(Self.password)"}"#)
                #expect(old.status == .badRequest, "the old password came back")
                let new = try await client.send(
                    .post, "/token?grant_type=password", json: #"{"email":"\#(email)","password":"a brand new passphrase 2026"}"#)
                #expect(new.status == .ok)
                // An operator's new password signs the user out everywhere, as GoTrue.
                try await Self.expectEnded(signIns, client)
            }
        }
    }

    @Test func anOperatorsNewAddressSurvivesSignInsInFlight() async throws {
        try await Self.server().run { client, app async throws in
            let admin = try await AdminUserTests.serviceRole(app)
            for round in 0..<3 {
                let (user, _, change) = try await Self.signInsAgainstOperator(
                    "mover\(round)@example.com", change: #"{"email":"moved\#(round)@example.com"}"#, client, app: app, admin: admin)
                #expect(change.status == .ok)
                #expect(try await Self.adminUser(user.id, client, admin: admin).email == "moved\(round)@example.com")
            }
        }
    }

    @Test func aBanSurvivesCodeDeviceKeyAndRefreshSignInsInFlight() async throws {
        try await Self.server().run { client, app async throws in
            let admin = try await AdminUserTests.serviceRole(app)
            for round in 0..<2 {
                let email = "many\(round)@example.com"
                let session = try await client.signUpConfirmed(email, password: Self.password, app: app)
                let id = session.user.id.uuidString.lowercased()
                let device = TestDevice()
                let key = try await client.register(device, session: session)
                var assertions: [String] = []
                for _ in 0..<3 { assertions.append(try await device.assertion(keyID: key.id, userID: id)) }
                var refreshTokens = [session.refreshToken]
                for _ in 0..<2 {
                    let more = try await client.send(
                        .post, "/token?grant_type=password", json: #"{"email":"\#(email)","password":"\#(Self.password)"}"#)
                    refreshTokens.append(try more.decode(Session.self).refreshToken)
                }
                #expect(try await client.send(.post, "/otp", json: #"{"email":"\#(email)"}"#).status == .ok)
                let code = try await client.latestCode(to: email, app: app)

                let jwtBearer = "urn:ietf:params:oauth:grant-type:jwt-bearer"
                let frozenAssertions = assertions
                let frozenRefresh = refreshTokens
                async let devices = client.concurrently(3, .post, "/token?grant_type=\(jwtBearer)") { index in
                    #"{"assertion":"\#(frozenAssertions[index])"}"#
                }
                async let refreshes = client.concurrently(3, .post, "/token?grant_type=refresh_token") { index in
                    #"{"refresh_token":"\#(frozenRefresh[index])"}"#
                }
                async let codes = client.concurrently(2, .post, "/verify") { _ in
                    #"{"type":"email","email":"\#(email)","token":"\#(code)"}"#
                }
                try await Task.sleep(for: .milliseconds(5))
                let ban = try await client.send(.put, "/admin/users/\(id)", json: #"{"ban_duration":"876000h"}"#, bearer: admin)
                #expect(ban.status == .ok)
                let answers = try await devices + refreshes + codes
                #expect(try await Self.adminUser(session.user.id, client, admin: admin).bannedUntil != nil, "the ban was undone")
                #expect(!answers.contains { $0.status == .internalServerError })
                try await Self.expectEnded(answers, client)
                // A ban ends the user's device keys too.
                let later = try await device.assertion(keyID: key.id, userID: id)
                #expect(try await client.deviceSignIn(later).status != .ok)
            }
        }
    }
}
