import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyCore
import LatchkeyServer
import LatchkeyStore
import NIOCore
import Testing

@Suite struct SessionTests {
    @Test func wrongPasswordIsInvalidCredentialsInBothDialects() async throws {
        try await TestServer().run { client, app async throws in
            _ = try await client.signUpConfirmed("pw@example.com", app: app)
            let modern = try await client.send(
                .post, "/token?grant_type=password", json: #"{"email":"pw@example.com","password":"wrong wrong wrong wrong"}"#)
            #expect(modern.status == .badRequest)
            #expect(modern.headers[apiVersionHeader] == "2024-01-01")
            let body = try modern.decode(APIErrorBody.self)
            #expect(body.code == .invalidCredentials)
            #expect(body.message == "Invalid login credentials")
            let legacy = try await client.send(
                .post, "/token?grant_type=password", json: #"{"email":"nobody@example.com","password":"wrong wrong wrong wrong"}"#,
                legacy: true)
            let legacyBody = try legacy.decode(LegacyAPIErrorBody.self)
            #expect(legacyBody.code == 400)
            #expect(legacyBody.errorCode == .invalidCredentials)
            #expect(legacy.headers[HTTPField.Name("x-sb-error-code")!] == "invalid_credentials")
        }
    }

    @Test func refreshRotatesAndDetectsReuse() async throws {
        let time = ManualTimeSource(Date())
        try await TestServer().run(time: time) { client, app async throws in
            let r0 = try await client.signUpConfirmed("rot@example.com", app: app).refreshToken
            let first = try await client.send(.post, "/token?grant_type=refresh_token", json: #"{"refresh_token":"\#(r0)"}"#)
            #expect(first.status == .ok)
            let r1 = try first.decode(Session.self).refreshToken
            #expect(r1 != r0)
            // A retry inside the grace window gets the same successor.
            let retry = try await client.send(.post, "/token?grant_type=refresh_token", json: #"{"refresh_token":"\#(r0)"}"#)
            #expect(try retry.decode(Session.self).refreshToken == r1)
            time.advance(by: 11)
            // After the window the old token is reuse: the whole session is revoked.
            let reuse = try await client.send(.post, "/token?grant_type=refresh_token", json: #"{"refresh_token":"\#(r0)"}"#)
            #expect(reuse.errorCode == "refresh_token_already_used")
            let dead = try await client.send(.post, "/token?grant_type=refresh_token", json: #"{"refresh_token":"\#(r1)"}"#)
            #expect(dead.errorCode == "refresh_token_not_found")
        }
    }

    @Test func concurrentRefreshesConvergeOnOneSuccessor() async throws {
        // A grace window far longer than the slowest request of a loaded test run: a request
        // that waited longer than the window would rightly be refused as reuse.
        try await TestServer(configure: { $0.auth.sessions.refreshReuseInterval = 300 }).run { client, app async throws in
            let r0 = try await client.signUpConfirmed("many@example.com", app: app).refreshToken
            let answers = try await client.concurrently(
                20, .post, "/token?grant_type=refresh_token", json: #"{"refresh_token":"\#(r0)"}"#)
            let tokens = answers.map { try? $0.decode(Session.self).refreshToken }
            for answer in answers where answer.status != .ok { Issue.record("refresh answered \(answer.status): \(answer.text)") }
            #expect(tokens.allSatisfy { $0 != nil })
            #expect(Set(tokens.compactMap { $0 }).count == 1)
        }
    }

    @Test func missingAndMalformedRefreshTokens() async throws {
        try await TestServer().run { client, _ async throws in
            let missing = try await client.send(.post, "/token?grant_type=refresh_token", json: "{}")
            #expect(missing.status == .badRequest)
            let oauth = try missing.decode(OAuthErrorBody.self)
            #expect(oauth.error == "invalid_request")
            #expect(oauth.errorDescription == "refresh_token required")
            let garbage = try await client.send(.post, "/token?grant_type=refresh_token", json: #"{"refresh_token":"' OR 1=1 --"}"#)
            #expect(garbage.errorCode == "refresh_token_not_found")
            let grant = try await client.send(.post, "/token?grant_type=magic", json: "{}")
            #expect(grant.errorCode == "invalid_credentials")
        }
    }

    @Test func logoutScopesEndSessions() async throws {
        try await TestServer().run { client, app async throws in
            let a = try await client.signUpConfirmed("out@example.com", app: app)
            let login = #"{"email":"out@example.com","password":"correct horse battery staple"}"#
            let b = try await client.send(.post, "/token?grant_type=password", json: login).decode(Session.self)
            let c = try await client.send(.post, "/token?grant_type=password", json: login).decode(Session.self)
            let others = try await client.send(.post, "/logout?scope=others", bearer: c.accessToken)
            #expect(others.status == .noContent)
            #expect(try await client.send(.get, "/user", bearer: a.accessToken).errorCode == "session_not_found")
            #expect(try await client.send(.get, "/user", bearer: b.accessToken).errorCode == "session_not_found")
            #expect(try await client.send(.get, "/user", bearer: c.accessToken).status == .ok)
            let bad = try await client.send(.post, "/logout?scope=everything", bearer: c.accessToken)
            #expect(bad.status == .badRequest)
            try await client.send(.post, "/logout?scope=local", bearer: c.accessToken)
            let gone = try await client.send(.get, "/user", bearer: c.accessToken)
            #expect(gone.status == .forbidden)
            #expect(gone.errorCode == "session_not_found")
            let refresh = try await client.send(.post, "/token?grant_type=refresh_token", json: #"{"refresh_token":"\#(c.refreshToken)"}"#)
            #expect(refresh.errorCode == "refresh_token_not_found")
        }
    }

    @Test func updateUserMergesMetadataAndChangesPassword() async throws {
        try await TestServer().run { client, app async throws in
            let session = try await client.signUpConfirmed("upd@example.com", app: app)
            let other = try await client.send(
                .post, "/token?grant_type=password", json: #"{"email":"upd@example.com","password":"correct horse battery staple"}"#
            ).decode(Session.self)
            let merged = try await client.send(.put, "/user", json: #"{"data":{"name":"Grace","team":"x"}}"#, bearer: session.accessToken)
                .decode(User.self)
            #expect(merged.userMetadata["team"] == "x")
            let deleted = try await client.send(.put, "/user", json: #"{"data":{"team":null}}"#, bearer: session.accessToken).decode(
                User.self)
            #expect(deleted.userMetadata["team"] == nil)
            #expect(deleted.userMetadata["name"] == "Grace")
            let same = try await client.send(
                .put, "/user", json: #"{"password":"correct horse battery staple"}"#, bearer: session.accessToken)
            #expect(same.errorCode == "same_password")
            let admin = try await client.send(.put, "/user", json: #"{"app_metadata":{"role":"admin"}}"#, bearer: session.accessToken)
            #expect(admin.status == .forbidden)
            #expect(admin.errorCode == "not_admin")
            let changed = try await client.send(.put, "/user", json: #"{"password":"a brand new passphrase"}"#, bearer: session.accessToken)
            #expect(changed.status == .ok)
            // Other sessions end with a password change; this one stays.
            #expect(try await client.send(.get, "/user", bearer: other.accessToken).errorCode == "session_not_found")
            #expect(try await client.send(.get, "/user", bearer: session.accessToken).status == .ok)
            let old = try await client.send(
                .post, "/token?grant_type=password", json: #"{"email":"upd@example.com","password":"correct horse battery staple"}"#)
            #expect(old.errorCode == "invalid_credentials")
        }
    }

    @Test func badTokensAreRefused() async throws {
        try await TestServer().run { client, _ async throws in
            #expect(try await client.send(.get, "/user").status == .unauthorized)
            #expect(try await client.send(.get, "/user").errorCode == "no_authorization")
            let none = "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJzdWIiOiIxMjMiLCJyb2xlIjoic2VydmljZV9yb2xlIn0."
            #expect(try await client.send(.get, "/user", bearer: none).errorCode == "bad_jwt")
            #expect(try await client.send(.get, "/user", bearer: "not.a.jwt").errorCode == "bad_jwt")
        }
    }

    @Test func sessionsKeysAndRotatedTokensSurviveRestart() async throws {
        let server = TestServer()
        let time = ManualTimeSource(Date())
        let (session, rotated) = try await server.run(time: time) { client, app async throws in
            let session = try await client.signUpConfirmed("restart@example.com", app: app)
            let next = try await client.send(
                .post, "/token?grant_type=refresh_token", json: #"{"refresh_token":"\#(session.refreshToken)"}"#
            ).decode(Session.self)
            return (next, session.refreshToken)
        }
        time.advance(by: 30)
        try await server.run(time: time) { client, _ async throws in
            #expect(try await client.send(.get, "/user", bearer: session.accessToken).status == .ok)
            let old = try await client.send(.post, "/token?grant_type=refresh_token", json: #"{"refresh_token":"\#(rotated)"}"#)
            #expect(old.errorCode == "refresh_token_already_used")
        }
    }

    @Test func rateLimitsAnswer429WithRetryAfter() async throws {
        // A clock that stands still: the three requests cannot straddle a window boundary.
        let time = ManualTimeSource(Date(timeIntervalSince1970: 1_800_000_100))
        try await TestServer(configure: { $0.auth.rateLimits.otpPerIP = RateLimit(count: 2, period: 300) }).run(time: time) {
            client, _ async throws in
            for _ in 0..<2 { try await client.send(.post, "/otp", json: #"{"email":"rl@example.com"}"#) }
            let limited = try await client.send(.post, "/otp", json: #"{"email":"rl@example.com"}"#)
            #expect(limited.status == .tooManyRequests)
            #expect(limited.errorCode == "over_request_rate_limit")
            #expect(Int(limited.headers[.retryAfter] ?? "") ?? 0 > 0)
        }
    }

    @Test func resendCooldownPerUser() async throws {
        try await TestServer(configure: { $0.auth.otp.sendFrequency = 60 }).run { client, _ async throws in
            try await client.send(.post, "/otp", json: #"{"email":"cool@example.com"}"#)
            let again = try await client.send(.post, "/otp", json: #"{"email":"cool@example.com"}"#)
            #expect(again.status == .tooManyRequests)
            let body = try again.decode(APIErrorBody.self)
            #expect(body.code == .overEmailSendRateLimit)
            #expect(body.message.hasPrefix("For security purposes, you can only request this after"))
        }
    }

    @Test func failedSignInsLockTheAccountAcrossIPs() async throws {
        // A clock that stands still (moved by hand): no window boundary falls between the tries.
        let time = ManualTimeSource(Date())
        try await TestServer(configure: {
            $0.auth.rateLimits.signInFailuresPerAccount = RateLimit(count: 3, period: 900)
            $0.trustedIPHeader = "X-Real-IP"
        }).run(time: time) { client, app async throws in
            _ = try await client.signUpConfirmed("lock@example.com", app: app)
            for index in 0..<3 {
                let response = try await client.send(
                    .post, "/token?grant_type=password", json: #"{"email":"LOCK@example.com","password":"wrong wrong wrong wrong"}"#,
                    headers: [HTTPField.Name("X-Real-IP")!: "10.0.0.\(index)"])
                #expect(response.errorCode == "invalid_credentials")
            }
            time.advance(by: 1)  // the audit log orders by time
            let locked = try await client.send(
                .post, "/token?grant_type=password", json: #"{"email":"lock@example.com","password":"correct horse battery staple"}"#)
            #expect(locked.status == .tooManyRequests)
            // The audit log has each failure from its own address (the trusted header) and one lock-out.
            let log = try await AuditLogTests.log(client, try await AdminUserTests.serviceRole(app), query: "&action=login_failed,lockout")
            #expect(log.filter { $0.payload.action == "login_failed" }.map(\.ipAddress).sorted() == ["10.0.0.0", "10.0.0.1", "10.0.0.2"])
            #expect(log.first?.payload.action == "lockout" && log.first?.ipAddress == "10.0.0.2")
        }
    }

    @Test func concurrentGuessesAllCountTowardsTheLockOut() async throws {
        // Slow hashing (scrypt N = 2^14): every guess is in flight before the first is checked.
        try await TestServer(configure: {
            $0.auth.rateLimits.signInFailuresPerAccount = RateLimit(count: 5, period: 900)
            $0.auth.password.scryptLogN = 14
        }).run(time: ManualTimeSource(Date())) { client, app async throws in
            _ = try await client.signUpConfirmed("burst@example.com", app: app)
            let answers = try await client.concurrently(
                20, .post, "/token?grant_type=password", json: #"{"email":"burst@example.com","password":"wrong wrong wrong wrong"}"#)
            #expect(answers.filter { $0.errorCode == "invalid_credentials" }.count == 5)
            #expect(answers.filter { $0.status == .tooManyRequests }.count == 15)
            // A right password does not use up an attempt: after a release, the limit still holds.
            let locked = try await client.send(
                .post, "/token?grant_type=password", json: #"{"email":"burst@example.com","password":"correct horse battery staple"}"#)
            #expect(locked.status == .tooManyRequests)
        }
    }

    @Test func rightPasswordsDoNotCountTowardsTheLockOut() async throws {
        try await TestServer(configure: {
            $0.auth.rateLimits.signInFailuresPerAccount = RateLimit(count: 2, period: 900)
        }).run(time: ManualTimeSource(Date())) { client, app async throws in
            _ = try await client.signUpConfirmed("fine@example.com", app: app)
            for _ in 0..<5 {
                let answer = try await client.send(
                    .post, "/token?grant_type=password", json: #"{"email":"fine@example.com","password":"correct horse battery staple"}"#)
                #expect(answer.status == .ok)
            }
        }
    }
}
