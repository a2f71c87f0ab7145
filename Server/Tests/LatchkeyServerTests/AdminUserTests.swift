import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyCore
import LatchkeyServer
import Testing

/// GoTrue's admin user endpoints with a service-role token.
@Suite struct AdminUserTests {
    /// A service-role token as Supabase issues them: no `sub`, `exp` or `aud`.
    static func serviceRole(_ app: UseCases) async throws -> String {
        try await app.issuer.sign(AccessTokenClaims(iss: "supabase", role: "service_role"))
    }

    /// bcrypt of "U*U" (OpenBSD's test vector), as GoTrue stores hashes.
    static let bcryptOfSecret = "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"

    @Test func operatorsCreateListReadUpdateAndDeleteUsers() async throws {
        try await TestServer().run { client, app async throws in
            let admin = try await Self.serviceRole(app)
            let created = try await client.send(
                .post, "/admin/users",
                json:
                    #"{"email":"Op@Example.com","password":"correct horse battery staple","email_confirm":true,"user_metadata":{"plan":"pro"},"app_metadata":{"tier":2,"provider":"forged"}}"#,
                bearer: admin)
            #expect(created.status == .ok)
            let user = try created.decode(User.self)
            #expect(user.email == "op@example.com" && user.emailConfirmedAt != nil)
            #expect(user.userMetadata["plan"] == "pro")
            #expect(user.appMetadata["tier"] == 2 && user.appMetadata["provider"] == "email")
            // The user signs in at once: no confirmation mail was needed.
            let signIn = try await client.send(
                .post, "/token?grant_type=password", json: #"{"email":"op@example.com","password":"correct horse battery staple"}"#)
            #expect(signIn.status == .ok)

            for index in 0..<3 {
                try await client.send(.post, "/admin/users", json: #"{"email":"page\#(index)@example.com"}"#, bearer: admin)
            }
            let page = try await client.send(.get, "/admin/users?page=1&per_page=2", bearer: admin)
            #expect(page.status == .ok)
            #expect(page.headers[HTTPField.Name("X-Total-Count")!] == "4")
            #expect(page.headers[HTTPField.Name("Link")!]?.contains(#"rel="next""#) == true)
            let listed = try page.decode(AdminUserList.self)
            #expect(listed.users.map(\.email) == ["page2@example.com", "page1@example.com"])
            let filtered = try await client.send(.get, "/admin/users?filter=op%40", bearer: admin).decode(AdminUserList.self)
            #expect(filtered.users.map(\.email) == ["op@example.com"])

            let id = user.id.uuidString.lowercased()
            #expect(try await client.send(.get, "/admin/users/\(id)", bearer: admin).decode(User.self).id == user.id)
            // An email change is applied at once; a ban ends the sessions.
            let updated = try await client.send(
                .put, "/admin/users/\(id)", json: #"{"email":"moved@example.com","user_metadata":{"plan":null},"ban_duration":"24h"}"#,
                bearer: admin)
            #expect(updated.status == .ok)
            let changed = try updated.decode(User.self)
            #expect(changed.email == "moved@example.com" && changed.userMetadata["plan"] == nil && changed.bannedUntil != nil)
            #expect(changed.identities?.first { $0.provider == "email" }?.identityData["email"] == "moved@example.com")
            let session = try signIn.decode(Session.self)
            #expect(try await client.send(.get, "/user", bearer: session.accessToken).status != .ok)
            let banned = try await client.send(
                .post, "/token?grant_type=password", json: #"{"email":"moved@example.com","password":"correct horse battery staple"}"#)
            #expect(banned.errorCode == "user_banned")
            let lifted = try await client.send(.put, "/admin/users/\(id)", json: #"{"ban_duration":"none"}"#, bearer: admin)
            #expect(try lifted.decode(User.self).bannedUntil == nil)

            #expect(try await client.send(.delete, "/admin/users/\(id)", bearer: admin).status == .ok)
            let gone = try await client.send(.get, "/admin/users/\(id)", bearer: admin)
            #expect(gone.status == .notFound && gone.errorCode == "user_not_found")
            #expect(try await client.send(.delete, "/admin/users/\(id)", bearer: admin).errorCode == "user_not_found")
        }
    }

    @Test func aBcryptHashImportedFromGoTrueSignsIn() async throws {
        try await TestServer().run { client, app async throws in
            let admin = try await Self.serviceRole(app)
            let id = UUID().uuidString.lowercased()
            let created = try await client.send(
                .post, "/admin/users",
                json: #"{"id":"\#(id)","email":"moved-over@example.com","password_hash":"\#(Self.bcryptOfSecret)","email_confirm":true}"#,
                bearer: admin)
            #expect(try created.decode(User.self).id.uuidString.lowercased() == id)
            let signIn = try await client.send(
                .post, "/token?grant_type=password", json: #"{"email":"moved-over@example.com","password":"U*U"}"#)
            #expect(signIn.status == .ok)
        }
    }

    @Test func onlyServiceRoleTokensAndGoodInputAreAccepted() async throws {
        try await TestServer().run { client, app async throws in
            let admin = try await Self.serviceRole(app)
            let user = try await client.signUpConfirmed("plain@example.com", app: app)
            #expect(try await client.send(.get, "/admin/users").status == .unauthorized)
            let notAdmin = try await client.send(.get, "/admin/users", bearer: user.accessToken)
            #expect(notAdmin.status == .forbidden && notAdmin.errorCode == "not_admin")
            #expect(try await client.send(.get, "/admin/users", bearer: "x.y.z").errorCode == "bad_jwt")

            let bad: [(HTTPRequest.Method, String, String?)] = [
                (.post, "/admin/users", #"{}"#),
                (.post, "/admin/users", #"{"email":"not an email"}"#),
                (.post, "/admin/users", #"{"phone":"+0123"}"#),
                (.post, "/admin/users", #"{"email":"a@example.com","password_hash":"md5:abc"}"#),
                (
                    .post, "/admin/users",
                    #"{"email":"a@example.com","password":"correct horse battery staple","password_hash":"\#(Self.bcryptOfSecret)"}"#
                ),
                (.post, "/admin/users", #"{"email":"a@example.com","ban_duration":"forever"}"#),
                (.post, "/admin/users", #"{"email":"a@example.com","id":"nope"}"#),
                (.post, "/admin/users", "{oops"),
                (.get, "/admin/users?page=0", nil),
                (.get, "/admin/users?per_page=abc", nil),
                (.put, "/admin/users/\(user.user.id.uuidString.lowercased())", #"{"role":""}"#),
            ]
            for (method, path, body) in bad {
                let response = try await client.send(method, path, json: body, bearer: admin)
                #expect(response.status == .badRequest, "\(method) \(path) \(body ?? ""): \(response.text)")
            }
            let weak = try await client.send(.post, "/admin/users", json: #"{"email":"a@example.com","password":"short"}"#, bearer: admin)
            #expect(weak.status == .unprocessableContent && weak.errorCode == "weak_password")
            let duplicate = try await client.send(.post, "/admin/users", json: #"{"email":"plain@example.com"}"#, bearer: admin)
            #expect(duplicate.status == .unprocessableContent && duplicate.errorCode == "email_exists")
            for path in ["/admin/users/nope", "/admin/users/\(UUID())"] {
                #expect(try await client.send(.get, path, bearer: admin).errorCode == "user_not_found")
                #expect(try await client.send(.put, path, json: "{}", bearer: admin).errorCode == "user_not_found")
            }
        }
    }

    @Test func updatesFollowGoTruesRules() async throws {
        try await TestServer().run { client, app async throws in
            let admin = try await Self.serviceRole(app)
            // Both addresses at once: an identity for each, written together.
            let both = try await client.send(
                .post, "/admin/users", json: #"{"email":"both@example.com","phone":"+15550100","email_confirm":true}"#, bearer: admin)
            #expect(both.status == .ok)
            let user = try both.decode(User.self)
            #expect(Set(user.identities?.map(\.provider) ?? []) == ["email", "phone"])
            #expect(user.appMetadata["providers"] == ["email", "phone"])
            let id = user.id.uuidString.lowercased()

            // `email_confirm: false` un-confirms nothing (GoTrue ignores it).
            let kept = try await client.send(.put, "/admin/users/\(id)", json: #"{"email_confirm":false}"#, bearer: admin)
            let stillConfirmed = try #require(try kept.decode(User.self).emailConfirmedAt)
            #expect(abs(stillConfirmed.timeIntervalSince(try #require(user.emailConfirmedAt))) < 0.01)
            // A password, then an imported hash, each signs in; app_metadata merges and keeps the providers.
            let password = try await client.send(
                .put, "/admin/users/\(id)", json: #"{"password":"a long enough passphrase 9","app_metadata":{"tier":3}}"#,
                bearer: admin)
            #expect(try password.decode(User.self).appMetadata["tier"] == 3)
            #expect(try password.decode(User.self).appMetadata["provider"] == "email")
            let signIn = #"{"email":"both@example.com","password":"a long enough passphrase 9"}"#
            #expect(try await client.send(.post, "/token?grant_type=password", json: signIn).status == .ok)
            let imported = try await client.send(
                .put, "/admin/users/\(id)", json: #"{"password_hash":"\#(Self.bcryptOfSecret)"}"#, bearer: admin)
            #expect(imported.status == .ok)
            #expect(
                try await client.send(.post, "/token?grant_type=password", json: #"{"email":"both@example.com","password":"U*U"}"#)
                    .status == .ok)
            // An address another user has is refused, and nothing changes.
            try await client.send(.post, "/admin/users", json: #"{"email":"taken@example.com"}"#, bearer: admin)
            let clash = try await client.send(.put, "/admin/users/\(id)", json: #"{"email":"taken@example.com"}"#, bearer: admin)
            #expect(clash.status == .unprocessableContent && clash.errorCode == "email_exists")
            #expect(try await client.send(.get, "/admin/users/\(id)", bearer: admin).decode(User.self).email == "both@example.com")
            // An operator's address change is recorded as one, with the address it replaced.
            let moved = try await client.send(
                .put, "/admin/users/\(id)", json: #"{"email":"moved@example.com","phone":"+15550111"}"#, bearer: admin)
            #expect(try moved.decode(User.self).email == "moved@example.com")
            let changes = try await AuditLogTests.log(client, admin, query: "&user_id=\(id)&action=email_changed,phone_changed")
            #expect(Set(changes.map(\.payload.action)) == ["email_changed", "phone_changed"])
            #expect(changes.first { $0.payload.action == "email_changed" }?.payload.traits["from"] == "both@example.com")
            #expect(changes.allSatisfy { $0.payload.traits["via"] == "admin" && $0.payload.actorUsername == "service_role" })

            // GoTrue's documented 100-year ban works; past Go's longest duration it is refused.
            let century = try await client.send(.put, "/admin/users/\(id)", json: #"{"ban_duration":"876000h"}"#, bearer: admin)
            #expect(century.status == .ok)
            let until = try #require(try century.decode(User.self).bannedUntil)
            #expect(until.timeIntervalSinceNow > 99 * 365 * 86400)
            let tooLong = try await client.send(.put, "/admin/users/\(id)", json: #"{"ban_duration":"2562048h"}"#, bearer: admin)
            #expect(tooLong.status == .badRequest && tooLong.errorCode == "validation_failed")

            // A soft delete is refused, not done hard: the user is still there.
            let soft = try await client.send(.delete, "/admin/users/\(id)", json: #"{"should_soft_delete":true}"#, bearer: admin)
            #expect(soft.status == .badRequest && soft.errorCode == "validation_failed")
            #expect(try await client.send(.get, "/admin/users/\(id)", bearer: admin).status == .ok)
            let hard = try await client.send(.delete, "/admin/users/\(id)", json: #"{"should_soft_delete":false}"#, bearer: admin)
            #expect(hard.status == .ok)
            #expect(try await client.send(.get, "/admin/users/\(id)", bearer: admin).status == .notFound)
        }
    }
}
