import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyCore
import LatchkeyServer
import LatchkeyStore
import NIOCore
import Testing

/// `POST /invite` and `POST /admin/generate_link` with a service-role token.
@Suite struct AdminLinkTests {
    @Test func anInvitationEmailsACodeThatConfirmsAndSignsIn() async throws {
        try await TestServer().run { client, app async throws in
            let admin = try await AdminUserTests.serviceRole(app)
            let invited = try await client.send(
                .post, "/invite?redirect_to=http://localhost:3000/welcome",
                json: #"{"email":"New.Hire@example.com","data":{"team":"core"}}"#,
                bearer: admin)
            #expect(invited.status == .ok)
            let user = try invited.decode(User.self)
            #expect(user.email == "new.hire@example.com" && user.invitedAt != nil && user.emailConfirmedAt == nil)
            // GoTrue stamps the invitation as the address's confirmation mail too.
            #expect(user.confirmationSentAt == user.invitedAt)
            #expect(user.userMetadata["team"] == "core")
            try await app.settleOutbox()
            let mail = try #require(try await app.store.mailbox(to: "new.hire@example.com", limit: 1).first)
            #expect(mail.message.subject == "You have been invited to Latchkey")
            #expect(mail.message.text.contains("type=invite") && mail.message.text.contains("redirect_to=http://localhost:3000/welcome"))
            let code = try await client.latestCode(to: "new.hire@example.com", app: app)
            let verified = try await client.send(
                .post, "/verify", json: #"{"type":"invite","email":"new.hire@example.com","token":"\#(code)"}"#)
            #expect(verified.status == .ok)
            let session = try verified.decode(Session.self)
            #expect(session.user.emailConfirmedAt != nil)
            #expect(await app.issuer.verify(session.accessToken)?.amr?.map(\.method) == ["invite"])
            // The invited user sets a password afterwards.
            let password = try await client.send(
                .put, "/user", json: #"{"password":"my own passphrase 2026"}"#, bearer: session.accessToken)
            #expect(password.status == .ok)

            let again = try await client.send(.post, "/invite", json: #"{"email":"new.hire@example.com"}"#, bearer: admin)
            #expect(again.status == .unprocessableContent && again.errorCode == "email_exists")
            // supabase-swift's `admin.inviteUserByEmail` posts to `/admin/invite` (GoTrue: 404):
            // the same invitation, for operators only.
            let swift = try await client.send(.post, "/admin/invite", json: #"{"email":"swift.hire@example.com"}"#, bearer: admin)
            #expect(swift.status == .ok)
            #expect(try swift.decode(User.self).invitedAt != nil)
            let notAdmin = try await client.send(.post, "/admin/invite", json: #"{"email":"y@example.com"}"#, bearer: session.accessToken)
            #expect(notAdmin.status == .forbidden && notAdmin.errorCode == "not_admin")
            let bad = try await client.send(.post, "/invite", json: #"{"email":"not an address"}"#, bearer: admin)
            #expect(bad.status == .badRequest && bad.errorCode == "email_address_invalid")
            #expect(try await client.send(.post, "/invite", json: #"{}"#, bearer: admin).errorCode == "validation_failed")
            let refused = try await client.send(.post, "/invite", json: #"{"email":"x@example.com"}"#, bearer: session.accessToken)
            #expect(refused.status == .forbidden && refused.errorCode == "not_admin")
            let log = try await AuditLogTests.log(client, admin, query: "&action=user_invited")
            #expect(log.map(\.payload.actorUsername) == ["service_role", "service_role"])
        }
    }

    /// `POST /admin/generate_link` as raw JSON and decoded.
    static func generate(_ client: any TestClientProtocol, _ admin: String, _ json: String) async throws -> (TestResponse, GeneratedLink?) {
        let response = try await client.send(.post, "/admin/generate_link", json: json, bearer: admin)
        return (response, try? response.decode(GeneratedLink.self))
    }

    @Test func generatedLinksAndCodesWorkWithoutAnyMail() async throws {
        try await TestServer().run { client, app async throws in
            let admin = try await AdminUserTests.serviceRole(app)
            // signup: a new unconfirmed user; the code confirms and signs in.
            let (signupResponse, signup) = try await Self.generate(
                client, admin, #"{"type":"signup","email":"gen@example.com","password":"correct horse battery staple"}"#)
            #expect(signupResponse.status == .ok)
            let link = try #require(signup)
            #expect(link.verificationType == "signup" && link.emailOTP.count == 6 && link.user.email == "gen@example.com")
            #expect(link.actionLink.hasPrefix("http://127.0.0.1:9999/verify?token=\(link.hashedToken)&type=signup"))
            // GoTrue's flattened shape: the user's fields beside the link's.
            let object = try #require(try JSONSerialization.jsonObject(with: Data(signupResponse.body.readableBytesView)) as? [String: Any])
            #expect(object["email"] as? String == "gen@example.com" && object["action_link"] as? String == link.actionLink)
            #expect(object["id"] as? String == link.user.id.uuidString.lowercased())
            try await app.settleOutbox()
            #expect(try await app.store.mailbox(to: "gen@example.com", limit: 5).isEmpty)
            let confirmed = try await client.send(
                .post, "/verify", json: #"{"type":"signup","email":"gen@example.com","token":"\#(link.emailOTP)"}"#)
            #expect(confirmed.status == .ok)

            // magiclink for a known user, redeemed by its token hash; for an unknown one, a sign-up.
            let (_, magic) = try await Self.generate(client, admin, #"{"type":"magiclink","email":"gen@example.com"}"#)
            #expect(magic?.verificationType == "magiclink")
            let byHash = try await client.send(
                .post, "/verify", json: #"{"type":"magiclink","token_hash":"\#(magic?.hashedToken ?? "")"}"#)
            #expect(byHash.status == .ok)
            let (_, unknown) = try await Self.generate(client, admin, #"{"type":"magiclink","email":"stranger@example.com"}"#)
            #expect(unknown?.verificationType == "signup" && unknown?.user.emailConfirmedAt == nil)

            // recovery: known users only.
            let (missing, _) = try await Self.generate(client, admin, #"{"type":"recovery","email":"nobody@example.com"}"#)
            #expect(missing.status == .notFound && missing.errorCode == "user_not_found")
            let (_, recovery) = try await Self.generate(
                client, admin, #"{"type":"recovery","email":"gen@example.com","redirect_to":"http://localhost:3000/reset"}"#)
            #expect(recovery?.redirectTo == "http://localhost:3000/reset" && recovery?.actionLink.contains("type=recovery") == true)
            let recovered = try await client.send(
                .post, "/verify", json: #"{"type":"recovery","email":"gen@example.com","token":"\#(recovery?.emailOTP ?? "")"}"#)
            #expect(recovered.status == .ok)

            // invite: a new user, confirmed by the invite code.
            let (_, invite) = try await Self.generate(client, admin, #"{"type":"invite","email":"invitee@example.com"}"#)
            #expect(invite?.verificationType == "invite" && invite?.user.invitedAt != nil)

            // email change: the operator vouches, one confirmation moves the user.
            let (noNew, _) = try await Self.generate(client, admin, #"{"type":"email_change_new","email":"gen@example.com"}"#)
            #expect(noNew.status == .badRequest)
            let (taken, _) = try await Self.generate(
                client, admin, #"{"type":"email_change_new","email":"gen@example.com","new_email":"stranger@example.com"}"#)
            #expect(taken.errorCode == "email_exists")
            let (_, change) = try await Self.generate(
                client, admin, #"{"type":"email_change_new","email":"gen@example.com","new_email":"moved@example.com"}"#)
            // GoTrue answers with the type asked for; the link itself says email_change.
            #expect(change?.verificationType == "email_change_new" && change?.user.newEmail == "moved@example.com")
            #expect(change?.actionLink.contains("type=email_change&") == true)
            let moved = try await client.send(
                .post, "/verify", json: #"{"type":"email_change","email":"moved@example.com","token":"\#(change?.emailOTP ?? "")"}"#)
            #expect(moved.status == .ok)
            #expect(try moved.decode(Session.self).user.email == "moved@example.com")

            // email_change_current: the code goes to the address the user has now.
            let (_, current) = try await Self.generate(
                client, admin, #"{"type":"email_change_current","email":"moved@example.com","new_email":"again@example.com"}"#)
            #expect(current?.verificationType == "email_change_current" && current?.user.newEmail == "again@example.com")
            let fromCurrent = try await client.send(
                .post, "/verify",
                json: #"{"type":"email_change","email":"moved@example.com","token":"\#(current?.emailOTP ?? "")"}"#)
            #expect(fromCurrent.status == .ok)
            #expect(try fromCurrent.decode(Session.self).user.email == "again@example.com")
            let (nobody, _) = try await Self.generate(
                client, admin, #"{"type":"email_change_current","email":"nobody@example.com","new_email":"x@example.com"}"#)
            #expect(nobody.status == .notFound && nobody.errorCode == "user_not_found")

            for (json, code) in [
                (#"{"type":"teleport","email":"gen@example.com"}"#, "validation_failed"),
                (#"{"type":"signup","email":"x@example.com"}"#, "validation_failed"),
                (#"{"type":"signup","email":"x@example.com","password":"short"}"#, "weak_password"),
                (#"{"type":"signup"}"#, "validation_failed"),
                (#"{"type":"signup","email":"again@example.com","password":"correct horse battery staple"}"#, "email_exists"),
            ] {
                let (response, _) = try await Self.generate(client, admin, json)
                #expect(response.errorCode == code, "\(json)")
            }
            let log = try await AuditLogTests.log(client, admin, query: "&action=link_generated")
            #expect(log.count == 7)
            let raw = String(decoding: try WireJSON.makeEncoder().encode(log), as: UTF8.self)
            for secret in [link.emailOTP, link.hashedToken, recovery?.hashedToken ?? "", change?.emailOTP ?? ""] {
                #expect(!raw.contains(secret))
            }
        }
    }
}
