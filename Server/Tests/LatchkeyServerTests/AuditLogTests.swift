import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyCore
import LatchkeyServer
import Testing

/// The audit log: every security event, with who and where, through the real HTTP stack.
@Suite struct AuditLogTests {
    static let userAgent: HTTPFields = [.userAgent: "AuditTest/1.0"]

    /// The whole log, newest first, as an operator reads it.
    static func log(_ client: any TestClientProtocol, _ admin: String, query: String = "") async throws -> [AuditLogEntry] {
        let response = try await client.send(.get, "/admin/audit?per_page=1000\(query)", bearer: admin)
        #expect(response.status == .ok)
        return try response.decode([AuditLogEntry].self)
    }

    @Test func signUpSignInFailuresAndChangesAreRecordedWithWhoAndWhere() async throws {
        try await TestServer().run { client, app async throws in
            let admin = try await AdminUserTests.serviceRole(app)
            let password = "correct horse battery staple"
            let session = try await client.signUpConfirmed("audit@example.com", password: password, app: app)
            let userID = session.user.id.uuidString.lowercased()
            try await client.send(
                .post, "/token?grant_type=password", json: #"{"email":"audit@example.com","password":"wrong password here"}"#,
                headers: Self.userAgent)
            try await client.send(
                .post, "/token?grant_type=password", json: #"{"email":"nobody@example.com","password":"wrong password here"}"#)
            let signedIn = try await client.send(
                .post, "/token?grant_type=password", json: #"{"email":"audit@example.com","password":"\#(password)"}"#,
                headers: Self.userAgent
            ).decode(Session.self)
            let newPassword = "a brand new passphrase 42"
            let changed = try await client.send(.put, "/user", json: #"{"password":"\#(newPassword)"}"#, bearer: signedIn.accessToken)
            #expect(changed.status == .ok)
            try await client.send(.put, "/admin/users/\(userID)", json: #"{"user_metadata":{"plan":"pro"},"role":"staff"}"#, bearer: admin)

            try await client.send(.post, "/logout?scope=others", bearer: signedIn.accessToken)
            let entries = try await Self.log(client, admin)
            let mine = entries.filter { $0.userID == userID }
            #expect(
                mine.map(\.payload.action).reversed() == [
                    "user_signedup", "code_sent", "login", "login_failed", "login", "user_updated_password", "user_modified", "logout",
                ])
            let signUp = try #require(mine.first { $0.payload.action == "user_signedup" })
            #expect(signUp.payload.actorUsername == "audit@example.com" && signUp.payload.actorID == userID)
            #expect(signUp.payload.logType == "account" && signUp.ipAddress == "127.0.0.1")
            let logins = mine.filter { $0.payload.action == "login" }
            #expect(logins.map { $0.payload.traits["method"] } == ["password", "otp"])
            #expect(logins.first?.userAgent == "AuditTest/1.0")
            let failed = try #require(mine.first { $0.payload.action == "login_failed" })
            #expect(failed.payload.traits["reason"] == "invalid_credentials" && failed.userAgent == "AuditTest/1.0")
            let unknown = try #require(entries.first { $0.payload.action == "login_failed" && $0.userID == nil })
            #expect(unknown.payload.actorUsername == "nobody@example.com" && unknown.payload.traits["reason"] == "unknown_user")
            let modified = try #require(mine.first { $0.payload.action == "user_modified" })
            #expect(modified.payload.actorUsername == "service_role" && modified.payload.actorID == "")
            #expect(modified.payload.logType == "team" && modified.payload.traits["fields"] == ["user_metadata", "role"])
            #expect(mine.first { $0.payload.action == "user_updated_password" }?.payload.traits["via"] == "update")

            // No secret ever reaches the log.
            let raw = String(decoding: try WireJSON.makeEncoder().encode(entries), as: UTF8.self)
            for secret in [password, newPassword, "wrong password here", session.refreshToken, signedIn.refreshToken] {
                #expect(!raw.contains(secret))
            }
        }
    }

    @Test func wrongCodesTheLockOutAndRefreshReuseAreRecorded() async throws {
        try await TestServer().run { client, app async throws in
            let admin = try await AdminUserTests.serviceRole(app)
            let session = try await client.signUpConfirmed("codes@example.com", app: app)
            let userID = session.user.id.uuidString.lowercased()
            try await client.send(.post, "/otp", json: #"{"email":"codes@example.com"}"#)
            let code = try await client.latestCode(to: "codes@example.com", app: app)
            let wrong = code == "000000" ? "111111" : "000000"
            let attempts = app.parts.configuration.otp.maxAttempts
            for _ in 0..<attempts {
                try await client.send(.post, "/verify", json: #"{"type":"email","email":"codes@example.com","token":"\#(wrong)"}"#)
            }
            // Refresh twice, then present the first token again: reuse, and the session is revoked.
            let second = try await client.send(
                .post, "/token?grant_type=refresh_token", json: #"{"refresh_token":"\#(session.refreshToken)"}"#
            ).decode(Session.self)
            try await client.send(.post, "/token?grant_type=refresh_token", json: #"{"refresh_token":"\#(second.refreshToken)"}"#)
            let reused = try await client.send(
                .post, "/token?grant_type=refresh_token", json: #"{"refresh_token":"\#(session.refreshToken)"}"#)
            #expect(reused.errorCode == "refresh_token_already_used")

            let entries = try await Self.log(client, admin, query: "&user_id=\(userID)")
            let failures = entries.filter { $0.payload.action == "code_failed" }
            #expect(failures.count == attempts)
            #expect(failures.map { $0.payload.traits["attempts_remaining"] }.contains(0))
            #expect(failures.first?.payload.traits["kind"] == "magiclink")
            let lockouts = entries.filter { $0.payload.action == "lockout" }
            #expect(lockouts.count == 1)
            let reuse = try #require(entries.first { $0.payload.action == "refresh_token_reuse" })
            #expect(reuse.payload.logType == "token" && reuse.payload.traits["session_id"] != nil)
            let raw = String(decoding: try WireJSON.makeEncoder().encode(entries), as: UTF8.self)
            #expect(!raw.contains(code) && !raw.contains(session.refreshToken))
        }
    }

    @Test func operatorsPageAndFilterTheLogAndBadQueriesAreRefused() async throws {
        try await TestServer().run { client, app async throws in
            let admin = try await AdminUserTests.serviceRole(app)
            for index in 0..<3 {
                try await client.send(.post, "/admin/users", json: #"{"email":"op\#(index)@example.com"}"#, bearer: admin)
            }
            let created = try await client.send(.get, "/admin/users?filter=op1", bearer: admin).decode(AdminUserList.self)
            let id = try #require(created.users.first?.id.uuidString.lowercased())
            try await client.send(.delete, "/admin/users/\(id)", bearer: admin)

            let page = try await client.send(.get, "/admin/audit?page=1&per_page=2&action=user_created", bearer: admin)
            #expect(page.status == .ok)
            #expect(page.headers[HTTPField.Name("X-Total-Count")!] == "3")
            #expect(
                page.headers[HTTPField.Name("Link")!]?.contains(#"</admin/audit?page=2&per_page=2&action=user_created>; rel="next""#)
                    == true)
            let entries = try page.decode([AuditLogEntry].self)
            #expect(entries.count == 2 && entries.allSatisfy { $0.payload.actorUsername == "service_role" })
            // The record of a deleted account stays.
            let aboutDeleted = try await Self.log(client, admin, query: "&user_id=\(id)")
            #expect(aboutDeleted.map(\.payload.action) == ["user_deleted", "user_created"])
            let both = try await Self.log(client, admin, query: "&action=user_deleted,user_created")
            #expect(both.count == 4)

            let unknown = try await client.send(.get, "/admin/audit?action=teleported", bearer: admin)
            #expect(unknown.status == .badRequest && unknown.errorCode == "validation_failed")
            let badUser = try await client.send(.get, "/admin/audit?user_id=not-a-uuid", bearer: admin)
            #expect(badUser.status == .badRequest && badUser.errorCode == "validation_failed")
            let badPage = try await client.send(.get, "/admin/audit?per_page=0", bearer: admin)
            #expect(badPage.status == .badRequest)
            let user = try await client.signUpConfirmed("curious@example.com", app: app)
            let refused = try await client.send(.get, "/admin/audit", bearer: user.accessToken)
            #expect(refused.status == .forbidden && refused.errorCode == "not_admin")
            #expect(try await client.send(.get, "/admin/audit").status == .unauthorized)
        }
    }
}
