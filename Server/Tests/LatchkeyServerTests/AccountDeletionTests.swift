import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyCore
import LatchkeyServer
import LatchkeyStore
import Testing

/// `DELETE /user` (issue #36, App Store requirements): a user deletes their own account after a
/// recent authentication, with the second factor when they have one.
@Suite struct AccountDeletionTests {
    @Test func aFreshSessionDeletesTheAccountAndEverythingGoesWithIt() async throws {
        try await TestServer().run { client, app async throws in
            let session = try await client.signUpConfirmed("leaving@example.com", app: app)
            let other = try await client.send(
                .post, "/token?grant_type=password", json: #"{"email":"leaving@example.com","password":"correct horse battery staple"}"#)
            #expect(other.status == .ok)
            let deleted = try await client.send(.delete, "/user", bearer: session.accessToken)
            #expect(deleted.status == .noContent)
            // The user, its sessions (the other one's refresh too) and its sign-in are gone.
            #expect(try await client.send(.get, "/user", bearer: session.accessToken).status != .ok)
            let refresh = try other.decode(Session.self).refreshToken
            let refreshed = try await client.send(.post, "/token?grant_type=refresh_token", json: #"{"refresh_token":"\#(refresh)"}"#)
            #expect(refreshed.status != .ok)
            let signIn = try await client.send(
                .post, "/token?grant_type=password", json: #"{"email":"leaving@example.com","password":"correct horse battery staple"}"#)
            #expect(signIn.errorCode == "invalid_credentials")
            let events = try await app.store.auditEvents(AuditQuery(actions: [.userDeleted])).events
            #expect(events.count == 1 && events.first?.userID == session.user.id)
            // The address is free again.
            #expect(
                try await client.send(.post, "/signup", json: #"{"email":"leaving@example.com","password":"another long passphrase"}"#)
                    .status == .ok)
        }
    }

    @Test func anOlderSessionNeedsTheReauthenticationCode() async throws {
        let time = ManualTimeSource(Date())
        try await TestServer().run(time: time) { client, app async throws in
            let session = try await client.signUpConfirmed("old@example.com", app: app)
            time.advance(by: UserAccount.recentSignIn + 1)
            let refused = try await client.send(.delete, "/user", bearer: session.accessToken)
            #expect(refused.status == .badRequest && refused.errorCode == "reauthentication_needed")
            #expect(try await client.send(.get, "/reauthenticate", bearer: session.accessToken).status == .ok)
            let code = try await client.latestCode(to: "old@example.com", app: app)
            let wrong = String(code.reversed()) == code ? "000000" : String(code.reversed())
            let bad = try await client.send(.delete, "/user", json: #"{"nonce":"\#(wrong)"}"#, bearer: session.accessToken)
            #expect(bad.errorCode == "reauthentication_not_valid")
            for body in [#"{"nonce":5}"#, "[]", #"{"nonce":""#] {
                let malformed = try await client.send(.delete, "/user", json: body, bearer: session.accessToken)
                #expect(malformed.status == .badRequest, "\(body)")
            }
            let deleted = try await client.send(.delete, "/user", json: #"{"nonce":"\#(code)"}"#, bearer: session.accessToken)
            #expect(deleted.status == .noContent)
            #expect(try await app.store.user(email: "old@example.com") == nil)
        }
    }

    @Test func theSecondFactorAnAdminTokenAndAnAnonymousUser() async throws {
        let time = ManualTimeSource(Date())
        try await TestServer(configure: AnonymousUserTests.enabled).run(time: time) { client, app async throws in
            let session = try await client.signUpConfirmed("guarded@example.com", app: app)
            let (factor, totp, _) = try await MFATests.enroll(client, session)
            time.advance(by: 1)
            #expect(
                try await MFATests.verify(client, session, factor: factor, code: totp.code(step: totp.step(at: time.now()))).status == .ok)
            // A password alone (aal1) cannot delete an account that has a second factor.
            let aal1 = try await client.send(
                .post, "/token?grant_type=password", json: #"{"email":"guarded@example.com","password":"correct horse battery staple"}"#)
            let refused = try await client.send(.delete, "/user", bearer: try aal1.decode(Session.self).accessToken)
            #expect(refused.status == .unauthorized && refused.errorCode == "insufficient_aal")
            // The service role has no session of the user's: the admin API deletes users.
            let admin = try await AdminUserTests.serviceRole(app)
            let byAdmin = try await client.send(.delete, "/user", bearer: admin)
            #expect(byAdmin.status != .noContent)
            #expect(try await app.store.user(email: "guarded@example.com") != nil)

            // An anonymous user has nothing to reauthenticate with: an old session deletes it.
            let anonymous = try await client.send(.post, "/signup", json: "{}").decode(Session.self)
            #expect(anonymous.user.isAnonymous)
            time.advance(by: UserAccount.recentSignIn + 60)
            #expect(try await client.send(.delete, "/user", bearer: anonymous.accessToken).status == .noContent)
            #expect(try await app.store.user(id: anonymous.user.id) == nil)
        }
    }
}
