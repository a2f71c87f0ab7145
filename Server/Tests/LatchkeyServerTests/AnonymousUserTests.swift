import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyCore
import LatchkeyServer
import LatchkeyStore
import NIOCore
import Testing

/// Anonymous sign-ins as GoTrue's (issue #17): `POST /signup` with neither an email nor a phone,
/// the upgrade to a permanent user by an address, what anonymous users may not do, and the
/// clean-up of stale ones.
@Suite struct AnonymousUserTests {
    static func enabled(_ configuration: inout ServerConfiguration) { configuration.auth.anonymousUsers = true }

    @Test func offByDefaultAsOnGoTrue() async throws {
        try await TestServer().run { client, _ async throws in
            for body in ["{}", #"{"email":"","phone":""}"#, #"{"data":{"a":1}}"#] {
                let response = try await client.send(.post, "/signup", json: body)
                #expect(response.status == .unprocessableContent, "\(body)")
                #expect(response.errorCode == "anonymous_provider_disabled", "\(body)")
            }
            let settings = try await client.send(.get, "/settings")
            #expect(String(buffer: settings.body).contains(#""anonymous_users":false"#))
        }
    }

    /// An anonymous user: no address, no identity, `app_metadata` `{}`, signed in at `aal1`
    /// with `amr` `anonymous` and `is_anonymous` in the user and the token.
    @Test func anAnonymousSignInIsASessionWithoutAnAddress() async throws {
        try await TestServer(configure: Self.enabled).run { client, app async throws in
            let response = try await client.send(.post, "/signup", json: #"{"data":{"theme":"dark"}}"#)
            #expect(response.status == .ok)
            let session = try response.decode(Session.self)
            #expect(session.user.isAnonymous)
            #expect(session.user.email.isEmpty)
            #expect(session.user.identities?.isEmpty ?? true)
            #expect(session.user.appMetadata.isEmpty)
            #expect(session.user.userMetadata["theme"] == "dark")
            let claims = try #require(await app.issuer.verify(session.accessToken))
            #expect(claims.isAnonymous == true)
            #expect(claims.amr?.map(\.method) == ["anonymous"])
            #expect(claims.aal == "aal1")
            #expect(try await client.send(.get, "/user", bearer: session.accessToken).decode(User.self).isAnonymous)
            // Refreshing keeps it anonymous.
            let refreshed = try await client.send(
                .post, "/token?grant_type=refresh_token", json: #"{"refresh_token":"\#(session.refreshToken)"}"#)
            #expect(try refreshed.decode(Session.self).user.isAnonymous)
            let settings = try await client.send(.get, "/settings")
            #expect(String(buffer: settings.body).contains(#""anonymous_users":true"#))
        }
    }

    @Test func anonymousSignInsAreLimitedPerClientPerHourAndBySignupsOff() async throws {
        try await TestServer(configure: {
            Self.enabled(&$0)
            $0.auth.rateLimits.anonymousPerIP = RateLimit(count: 2, period: 3600)
        }).run { client, _ async throws in
            #expect(try await client.send(.post, "/signup", json: "{}").status == .ok)
            #expect(try await client.send(.post, "/signup", json: "{}").status == .ok)
            let third = try await client.send(.post, "/signup", json: "{}")
            #expect(third.status == .tooManyRequests)
            #expect(third.errorCode == "over_request_rate_limit")
        }
        try await TestServer(configure: {
            Self.enabled(&$0)
            $0.auth.disableSignup = true
        }).run { client, _ async throws in
            #expect(try await client.send(.post, "/signup", json: "{}").errorCode == "signup_disabled")
        }
    }

    /// Without autoconfirm, an address added by `PUT /user` is confirmed by the code sent to it;
    /// the user is anonymous until then and permanent after, with an email identity, and the
    /// session the confirmation opens says so.
    @Test func anAddressConfirmedByCodeMakesTheUserPermanent() async throws {
        try await TestServer(configure: Self.enabled).run { client, app async throws in
            let anonymous = try await client.send(.post, "/signup", json: "{}").decode(Session.self)
            let updated = try await client.send(
                .put, "/user", json: #"{"email":"keeper@example.com"}"#, bearer: anonymous.accessToken)
            #expect(updated.status == .ok)
            #expect(try updated.decode(User.self).isAnonymous)
            let code = try await client.latestCode(to: "keeper@example.com", app: app)
            let verified = try await client.send(
                .post, "/verify", json: #"{"type":"email_change","email":"keeper@example.com","token":"\#(code)"}"#)
            #expect(verified.status == .ok)
            let session = try verified.decode(Session.self)
            #expect(!session.user.isAnonymous)
            #expect(session.user.id == anonymous.user.id)
            #expect(session.user.email == "keeper@example.com")
            #expect(session.user.identities?.map(\.provider) == ["email"])
            #expect(await app.issuer.verify(session.accessToken)?.isAnonymous == false)
        }
    }

    /// With autoconfirm (as GoTrue), the first address is confirmed at once; with a password
    /// the user signs in with both from then on. A password alone is refused.
    @Test func withAutoconfirmTheAddressAndPasswordApplyAtOnce() async throws {
        try await TestServer(configure: {
            Self.enabled(&$0)
            $0.auth.mailerAutoconfirm = true
        }).run { client, app async throws in
            let anonymous = try await client.send(.post, "/signup", json: "{}").decode(Session.self)
            let password = "correct horse battery staple"
            let alone = try await client.send(.put, "/user", json: #"{"password":"\#(password)"}"#, bearer: anonymous.accessToken)
            #expect(alone.status == .unprocessableContent || alone.status == .badRequest)
            #expect(alone.errorCode == "validation_failed")
            let updated = try await client.send(
                .put, "/user", json: #"{"email":"now@example.com","password":"\#(password)"}"#, bearer: anonymous.accessToken)
            #expect(updated.status == .ok)
            let user = try updated.decode(User.self)
            #expect(!user.isAnonymous)
            #expect(user.email == "now@example.com")
            #expect(user.identities?.map(\.provider) == ["email"])
            let signIn = try await client.send(
                .post, "/token?grant_type=password", json: #"{"email":"now@example.com","password":"\#(password)"}"#)
            #expect(signIn.status == .ok)
            #expect(try signIn.decode(Session.self).user.id == anonymous.user.id)
            // A refresh of the old session carries the change into its token.
            let refreshed = try await client.send(
                .post, "/token?grant_type=refresh_token", json: #"{"refresh_token":"\#(anonymous.refreshToken)"}"#
            ).decode(Session.self)
            #expect(await app.issuer.verify(refreshed.accessToken)?.isAnonymous == false)
        }
    }

    /// The admin API lists anonymous users with the rest, each saying `is_anonymous`, and
    /// `is_anonymous=true|false` keeps one kind.
    @Test func theAdminAPIListsAndFiltersAnonymousUsers() async throws {
        try await TestServer(configure: Self.enabled).run { client, app async throws in
            let anonymous = try await client.send(.post, "/signup", json: "{}").decode(Session.self)
            _ = try await client.signUpConfirmed("permanent@example.com", app: app)
            let token = try await app.issuer.sign(AccessTokenClaims(iss: "supabase", role: "service_role"))
            func ids(_ query: String) async throws -> [UUID] {
                let response = try await client.send(.get, "/admin/users" + query, bearer: token)
                #expect(response.status == .ok, "\(query)")
                return try response.decode(AdminUserList.self).users.map(\.id)
            }
            #expect(try await ids("").count == 2)
            #expect(try await ids("?is_anonymous=true") == [anonymous.user.id])
            #expect(try await ids("?is_anonymous=false").count == 1)
            #expect(try await ids("?is_anonymous=false").contains(anonymous.user.id) == false)
            let bad = try await client.send(.get, "/admin/users?is_anonymous=maybe", bearer: token)
            #expect(bad.errorCode == "validation_failed")
        }
    }

    /// With SMS autoconfirm (as GoTrue), a number added by an anonymous user applies at once;
    /// without it, the number waits for its code and the user stays anonymous.
    @Test func aPhoneMakesTheUserPermanentAtOnceUnderSMSAutoconfirm() async throws {
        try await TestServer(configure: {
            Self.enabled(&$0)
            $0.auth.sms.autoconfirm = true
        }).run { client, _ async throws in
            let anonymous = try await client.send(.post, "/signup", json: "{}").decode(Session.self)
            let updated = try await client.send(.put, "/user", json: #"{"phone":"+15551230001"}"#, bearer: anonymous.accessToken)
            #expect(updated.status == .ok)
            let user = try updated.decode(User.self)
            #expect(!user.isAnonymous)
            #expect(user.phone == "15551230001")
            #expect(user.identities?.map(\.provider) == ["phone"])
        }
        try await TestServer(configure: Self.enabled).run { client, _ async throws in
            let anonymous = try await client.send(.post, "/signup", json: "{}").decode(Session.self)
            let updated = try await client.send(.put, "/user", json: #"{"phone":"+15551230002"}"#, bearer: anonymous.accessToken)
            #expect(try updated.decode(User.self).isAnonymous)
        }
    }

    /// `POST /signup` with an empty email and a phone is a phone sign-up, as on GoTrue.
    @Test func anEmptyEmailWithAPhoneIsAPhoneSignUp() async throws {
        try await TestServer(configure: Self.enabled).run { client, _ async throws in
            let response = try await client.send(
                .post, "/signup", json: #"{"email":"","phone":"+15551230009","password":"correct horse battery staple"}"#)
            #expect(response.status == .ok)
            let user = try response.decode(User.self)
            #expect(user.phone == "15551230009" && !user.isAnonymous)
        }
    }

    @Test func anonymousUsersMayNotEnrolSecondFactors() async throws {
        try await TestServer(configure: Self.enabled).run { client, _ async throws in
            let anonymous = try await client.send(.post, "/signup", json: "{}").decode(Session.self)
            let response = try await client.send(.post, "/factors", json: #"{"factor_type":"totp"}"#, bearer: anonymous.accessToken)
            #expect(response.status == .forbidden)
            #expect(response.errorCode == "no_authorization")
        }
    }

    /// Stale anonymous users go with what they own; permanent users, and anonymous users newer
    /// than the cut-off, stay.
    @Test func staleAnonymousUsersAreDeleted() async throws {
        let time = ManualTimeSource(Date())
        try await TestServer(configure: Self.enabled).run(time: time) { client, app async throws in
            let old = try await client.send(.post, "/signup", json: "{}").decode(Session.self)
            let kept = try await client.send(.post, "/signup", json: "{}").decode(Session.self)
            _ = try await client.send(.put, "/user", json: #"{"email":"kept@example.com"}"#, bearer: kept.accessToken)
            let code = try await client.latestCode(to: "kept@example.com", app: app)
            #expect(
                try await client.send(
                    .post, "/verify", json: #"{"type":"email_change","email":"kept@example.com","token":"\#(code)"}"#
                ).status == .ok)
            time.advance(by: 31 * 86400)
            let recent = try await client.send(.post, "/signup", json: "{}").decode(Session.self)
            #expect(try await app.signIn.anonymous.deleteStale(olderThanDays: 30) == 1)
            #expect(try await app.store.user(id: old.user.id) == nil)
            #expect(try await app.store.user(id: kept.user.id) != nil)
            #expect(try await app.store.user(id: recent.user.id) != nil)
            // Its session went with it.
            let refresh = try await client.send(
                .post, "/token?grant_type=refresh_token", json: #"{"refresh_token":"\#(old.refreshToken)"}"#)
            #expect(refresh.status == .badRequest)
            #expect(try await app.signIn.anonymous.deleteStale(olderThanDays: 30) == 0)
        }
    }
}
