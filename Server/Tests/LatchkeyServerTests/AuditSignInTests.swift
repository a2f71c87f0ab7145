import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyCore
import LatchkeyServer
import Testing

/// The audit log names how every sign-in happened and why every refused one was refused, and
/// records device keys coming and going, through the real HTTP stack.
@Suite struct AuditSignInTests {
    /// The user's events, oldest first.
    static func events(_ client: any TestClientProtocol, _ admin: String, of session: Session) async throws -> [AuditLogEntry] {
        try await AuditLogTests.log(client, admin, query: "&user_id=\(session.user.id.uuidString.lowercased())").reversed()
    }

    @Test func linksAndRecoveryRecordTheirMethod() async throws {
        let time = ManualTimeSource(Date())
        try await TestServer().run(time: time) { client, app async throws in
            let admin = try await AdminUserTests.serviceRole(app)
            // A magic link, redeemed by its secret.
            let linked = try await client.signUpConfirmed("link@example.com", app: app)
            time.advance(by: 1)  // the log orders by time
            #expect(try await client.send(.post, "/magiclink", json: #"{"email":"link@example.com"}"#).status == .ok)
            let secret = try await client.latestLinkSecret(to: "link@example.com", app: app)
            let link = try await client.send(.post, "/verify", json: #"{"type":"magiclink","token_hash":"\#(secret)"}"#)
            #expect(link.status == .ok)
            let linkEvents = try await Self.events(client, admin, of: linked)
            #expect(linkEvents.filter { $0.payload.action == "login" }.map { $0.payload.traits["method"] } == ["otp", "magiclink"])

            // A recovery code: sent (as its kind, never the code) and redeemed.
            let recovering = try await client.signUpConfirmed("recover@example.com", app: app)
            time.advance(by: 61)  // past the resend interval, and the mailbox orders by time
            #expect(try await client.send(.post, "/recover", json: #"{"email":"recover@example.com"}"#).status == .ok)
            // Recovery mail is queued in the background: wait for it.
            let mail = try await RecoveryTests().waitForMail(app, to: "recover@example.com", subject: "Reset your password")
            let code = String(try #require(mail.message.text.firstMatch(of: /is (\d{6})\./)).1)
            time.advance(by: 1)
            let recovered = try await client.send(
                .post, "/verify", json: #"{"type":"recovery","email":"recover@example.com","token":"\#(code)"}"#)
            #expect(recovered.status == .ok)
            let recoveryEvents = try await Self.events(client, admin, of: recovering)
            #expect(recoveryEvents.contains { $0.payload.action == "code_sent" && $0.payload.traits["kind"] == "recovery" })
            #expect(recoveryEvents.last?.payload.action == "login" && recoveryEvents.last?.payload.traits["method"] == "recovery")
            let raw = String(decoding: try WireJSON.makeEncoder().encode(linkEvents + recoveryEvents), as: UTF8.self)
            #expect(!raw.contains(code) && !raw.contains(secret))
        }
    }

    @Test func deviceKeysComingGoingAndSigningInAreRecorded() async throws {
        try await TestServer().run { client, app async throws in
            let admin = try await AdminUserTests.serviceRole(app)
            // A device key: registered, used, refused on replay, revoked, refused as gone.
            let owner = try await client.signUpConfirmed("device@example.com", app: app)
            let device = TestDevice()
            let key = try await client.register(device, session: owner)
            let keyID = key.id.uuidString.lowercased()
            let userID = owner.user.id.uuidString.lowercased()
            let assertion = try await device.assertion(keyID: keyID, userID: userID)
            #expect(try await client.deviceSignIn(assertion).status == .ok)
            #expect(try await client.deviceSignIn(assertion).status == .badRequest)
            #expect(try await client.send(.delete, "/device-keys/\(keyID)", bearer: owner.accessToken).status == .noContent)
            let afterRevoke = try await client.deviceSignIn(try await device.assertion(keyID: keyID, userID: userID))
            #expect(afterRevoke.status == .badRequest)
            let deviceEvents = try await Self.events(client, admin, of: owner).filter {
                ["device_key_registered", "device_key_revoked", "login", "login_failed"].contains($0.payload.action)
            }
            #expect(
                deviceEvents.map(\.payload.action) == ["login", "device_key_registered", "login", "login_failed", "device_key_revoked"])
            try #require(deviceEvents.count == 5)
            #expect(deviceEvents[1].payload.traits["key_id"] == .string(keyID) && deviceEvents[1].payload.logType == "factor")
            #expect(deviceEvents[2].payload.traits["method"] == "device_key")
            #expect(
                deviceEvents[3].payload.traits["method"] == "device_key"
                    && deviceEvents[3].payload.traits["reason"] == "invalid_credentials")
            #expect(deviceEvents[3].payload.actorUsername == "device@example.com")
            // The revoked key's user is not taken from the assertion's unverified `sub`.
            let gone = try await AuditLogTests.log(client, admin, query: "&action=login_failed").first
            #expect(gone?.userID == nil && gone?.payload.actorUsername == "device_key:\(keyID)")
            #expect(gone?.payload.traits["reason"] == "device_key_not_found")

            let raw = String(decoding: try WireJSON.makeEncoder().encode(deviceEvents), as: UTF8.self)
            #expect(!raw.contains(assertion))
        }
    }

    @Test func refusedSignInsSayWhy() async throws {
        try await TestServer().run { client, app async throws in
            let admin = try await AdminUserTests.serviceRole(app)
            // A password sign-in before the address is confirmed.
            let pending = try await client.send(
                .post, "/signup", json: #"{"email":"pending@example.com","password":"correct horse battery staple"}"#
            ).decode(User.self)
            let early = try await client.send(
                .post, "/token?grant_type=password", json: #"{"email":"pending@example.com","password":"correct horse battery staple"}"#)
            #expect(early.errorCode == "email_not_confirmed")
            let unconfirmed = try await AuditLogTests.log(
                client, admin, query: "&user_id=\(pending.id.uuidString.lowercased())&action=login_failed")
            #expect(unconfirmed.map { $0.payload.traits["reason"] } == ["email_not_confirmed"])
            #expect(unconfirmed.first?.payload.traits["method"] == "password")

            // A code redeemed after the user was banned: refused, recorded, and the code not spent.
            let banned = try await client.signUpConfirmed("banned@example.com", app: app)
            try await client.send(.post, "/otp", json: #"{"email":"banned@example.com"}"#)
            let code = try await client.latestCode(to: "banned@example.com", app: app)
            let id = banned.user.id.uuidString.lowercased()
            #expect(try await client.send(.put, "/admin/users/\(id)", json: #"{"ban_duration":"1h"}"#, bearer: admin).status == .ok)
            let refused = try await client.send(
                .post, "/verify", json: #"{"type":"email","email":"banned@example.com","token":"\#(code)"}"#)
            #expect(refused.errorCode == "user_banned")
            let bans = try await AuditLogTests.log(client, admin, query: "&user_id=\(id)&action=login_failed")
            #expect(bans.map { $0.payload.traits["reason"] } == ["user_banned"])
            #expect(bans.first?.payload.traits["method"] == "otp" && bans.first?.payload.actorUsername == "banned@example.com")

            // PKCE: a wrong verifier names the flow's user; an unknown code names nobody.
            let thiefCode = try await PKCETests().clickPKCELink(client, app: app, email: "pkce-audit@example.com")
            let wrong = String(repeating: "x", count: 64)
            let stolen = try await client.send(
                .post, "/token?grant_type=pkce", json: #"{"auth_code":"\#(thiefCode)","code_verifier":"\#(wrong)"}"#)
            #expect(stolen.errorCode == "bad_code_verifier")
            let unknown = try await client.send(
                .post, "/token?grant_type=pkce", json: #"{"auth_code":"no-such-code","code_verifier":"\#(wrong)"}"#)
            #expect(unknown.errorCode == "flow_state_not_found")
            let pkce = try await AuditLogTests.log(client, admin, query: "&action=login_failed").filter {
                $0.payload.traits["method"] == "pkce"
            }
            #expect(pkce.map { $0.payload.traits["reason"] } == ["flow_state_not_found", "bad_code_verifier"])
            #expect(pkce.last?.payload.actorUsername == "pkce-audit@example.com" && pkce.first?.userID == nil)
        }
    }

    @Test func aUserRemovingAnUnverifiedFactorIsRecorded() async throws {
        try await TestServer().run { client, app async throws in
            let session = try await client.signUpConfirmed("unenrol@example.com", app: app)
            let (factor, _, _) = try await MFATests.enroll(client, session)
            #expect(try await client.send(.delete, "/factors/\(factor)", bearer: session.accessToken).status == .ok)
            let log = try await AuditLogTests.log(
                client, try await AdminUserTests.serviceRole(app), query: "&action=factor_enrolled,factor_unenrolled")
            #expect(log.map(\.payload.action) == ["factor_unenrolled", "factor_enrolled"])
            #expect(log.first?.payload.actorUsername == "unenrol@example.com" && log.first?.payload.traits["factor_id"] == .string(factor))
        }
    }
}
