import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyCore
import LatchkeyServer
import LatchkeyStore
import NIOCore
import Testing

/// TOTP second factors through the real HTTP stack: enrol, challenge, verify, the `aal2`
/// session, the lock-out, and the rules that make the second factor count.
@Suite struct MFATests {
    /// Enrols a TOTP factor for `session` and returns its id and generator.
    static func enroll(
        _ client: any TestClientProtocol, _ session: Session, name: String? = "Phone"
    ) async throws -> (id: String, totp: TOTP, enrollment: TOTPEnrollment) {
        let body = name.map { #"{"factor_type":"totp","friendly_name":"\#($0)"}"# } ?? #"{"factor_type":"totp"}"#
        let response = try await client.send(.post, "/factors", json: body, bearer: session.accessToken)
        #expect(response.status == .ok)
        let enrollment = try response.decode(TOTPEnrollment.self)
        let secret = try #require(Base32.decode(enrollment.totp.secret))
        return (enrollment.id.uuidString.lowercased(), TOTP(secret: secret), enrollment)
    }

    /// Challenges the factor and verifies `code`; returns the verify response.
    static func verify(
        _ client: any TestClientProtocol, _ session: Session, factor: String, code: String, headers: HTTPFields = [:]
    ) async throws -> TestResponse {
        let challenge = try await client.send(
            .post, "/factors/\(factor)/challenge", json: "{}", bearer: session.accessToken, headers: headers)
        #expect(challenge.status == .ok)
        let id = try challenge.decode(FactorChallenge.self).id.uuidString.lowercased()
        return try await client.send(
            .post, "/factors/\(factor)/verify", json: #"{"challenge_id":"\#(id)","code":"\#(code)"}"#, bearer: session.accessToken,
            headers: headers)
    }

    @Test func enrolChallengeAndVerifyRaiseTheSessionToAAL2() async throws {
        let time = ManualTimeSource(Date())
        try await TestServer().run(time: time) { client, app async throws in
            let session = try await client.signUpConfirmed("totp@example.com", app: app)
            let (factor, totp, enrollment) = try await Self.enroll(client, session)
            #expect(totp.secret.count == 20)
            #expect(enrollment.type == "totp" && enrollment.friendlyName == "Phone")
            #expect(enrollment.totp.uri.hasPrefix("otpauth://totp/localhost:totp@example.com?secret=\(enrollment.totp.secret)"))
            #expect(enrollment.totp.uri.contains("&issuer=localhost&algorithm=SHA1&digits=6&period=30"))
            #expect(enrollment.totp.qrCode.hasPrefix("<svg") && enrollment.totp.qrCode.contains("<path"))
            // GoTrue lists the unverified factor on the user.
            let before = try await client.send(.get, "/user", bearer: session.accessToken).decode(User.self)
            #expect(before.factors?.map(\.status) == ["unverified"] && before.factors?.first?.id.uuidString.lowercased() == factor)

            time.advance(by: 1)  // the audit log orders by time
            let code = totp.code(step: totp.step(at: time.now()))
            let verified = try await Self.verify(client, session, factor: factor, code: code)
            #expect(verified.status == .ok)
            let upgraded = try verified.decode(Session.self)
            let claims = try #require(await app.issuer.verify(upgraded.accessToken))
            #expect(claims.aal == "aal2" && claims.amr?.map(\.method) == ["otp", "totp"])
            #expect(upgraded.user.factors?.map(\.status) == ["verified"])
            // The owner hears of it, in case it was not them.
            try await app.settleOutbox()
            #expect(
                try await app.store.mailbox(to: "totp@example.com", limit: 1).first?.message.subject
                    == "A second factor was added to your account")
            // The same code is good once, even on a new challenge.
            let replay = try await Self.verify(client, upgraded, factor: factor, code: code)
            #expect(replay.status == .unprocessableContent && replay.errorCode == "mfa_verification_failed")
            // A code from the step before still counts (clock drift); refreshing keeps aal2.
            time.advance(by: 30)
            let drifted = try await Self.verify(client, upgraded, factor: factor, code: totp.code(step: totp.step(at: time.now()) - 1))
            #expect(drifted.status == .unprocessableContent)  // that step's code was the one just used
            time.advance(by: 30)
            let next = try await Self.verify(client, upgraded, factor: factor, code: totp.code(step: totp.step(at: time.now()) - 1))
            #expect(next.status == .ok)
            let current = try next.decode(Session.self)
            let refreshed = try await client.send(
                .post, "/token?grant_type=refresh_token", json: #"{"refresh_token":"\#(current.refreshToken)"}"#
            ).decode(Session.self)
            let refreshedClaims = await app.issuer.verify(refreshed.accessToken)
            // aal2 kept, and one `totp` entry however often the factor was verified.
            #expect(refreshedClaims?.aal == "aal2" && refreshedClaims?.amr?.map(\.method) == ["otp", "totp"])
            // The aal1 refresh token from before the upgrade never mints a session: it counts as reuse.
            let stale = try await client.send(
                .post, "/token?grant_type=refresh_token", json: #"{"refresh_token":"\#(session.refreshToken)"}"#)
            #expect(stale.errorCode == "refresh_token_already_used")

            let log = try await AuditLogTests.log(
                client, try await AdminUserTests.serviceRole(app), query: "&action=factor_enrolled,factor_verified,mfa_verified")
            // The first factor's verification also stored the recovery codes it answered.
            #expect(
                log.map(\.payload.action).reversed() == [
                    "factor_enrolled", "factor_verified", "mfa_verified", "factor_enrolled", "mfa_verified",
                ])
            #expect(log.allSatisfy { $0.payload.traits["factor_id"] == .string(factor) || $0.payload.traits["type"] == "recovery_codes" })
            let raw = String(decoding: try WireJSON.makeEncoder().encode(log), as: UTF8.self)
            #expect(!raw.contains(enrollment.totp.secret) && !raw.contains(code))
        }
    }

    @Test func wrongCodesLockTheFactor() async throws {
        let time = ManualTimeSource(Date())
        try await TestServer().run(time: time) { client, app async throws in
            let session = try await client.signUpConfirmed("locked@example.com", app: app)
            let (factor, totp, _) = try await Self.enroll(client, session)
            let right = totp.code(step: totp.step(at: time.now()))
            let wrong = right == "000000" ? "111111" : "000000"
            for remaining in (1..<5).reversed() {
                let refused = try await Self.verify(client, session, factor: factor, code: wrong)
                #expect(refused.status == .unprocessableContent && refused.errorCode == "mfa_verification_failed")
                #expect(try refused.decode(APIErrorBody.self).attemptsRemaining == remaining)
            }
            let fifth = try await Self.verify(client, session, factor: factor, code: wrong)
            #expect(fifth.status == .tooManyRequests && fifth.headers[.retryAfter] == "900")
            // Locked: even the right code is refused, and so is a new challenge.
            let challenge = try await client.send(.post, "/factors/\(factor)/challenge", json: "{}", bearer: session.accessToken)
            #expect(challenge.status == .tooManyRequests)
            time.advance(by: 901)
            let unlocked = try await Self.verify(client, session, factor: factor, code: totp.code(step: totp.step(at: time.now())))
            #expect(unlocked.status == .ok)
            let log = try await AuditLogTests.log(client, try await AdminUserTests.serviceRole(app), query: "&action=code_failed,lockout")
            #expect(log.filter { $0.payload.action == "code_failed" }.count == 5)
            #expect(log.first?.payload.action == "lockout" && log.first?.payload.traits["kind"] == "totp")
        }
    }

    @Test func wrongCodesAndWrongPasswordsShareTheAccountLockOut() async throws {
        let time = ManualTimeSource(Date())
        try await TestServer(configure: { $0.auth.rateLimits.signInFailuresPerAccount = RateLimit(count: 3, period: 900) }).run(time: time)
        {
            client, app async throws in
            let session = try await client.signUpConfirmed("shared@example.com", app: app)
            let (factor, totp, _) = try await Self.enroll(client, session)
            let right = totp.code(step: totp.step(at: time.now()))
            let wrong = right == "000000" ? "111111" : "000000"
            for _ in 0..<2 {
                let refused = try await client.send(
                    .post, "/token?grant_type=password", json: #"{"email":"shared@example.com","password":"not the password at all"}"#)
                #expect(refused.errorCode == "invalid_credentials")
            }
            #expect(try await Self.verify(client, session, factor: factor, code: wrong).errorCode == "mfa_verification_failed")
            // Three failures of either kind: the account is locked for passwords and codes alike.
            let password = try await client.send(
                .post, "/token?grant_type=password", json: #"{"email":"shared@example.com","password":"correct horse battery staple"}"#)
            #expect(password.status == .tooManyRequests)
            #expect(try await Self.verify(client, session, factor: factor, code: right).status == .tooManyRequests)
            let lockouts = try await AuditLogTests.log(client, try await AdminUserTests.serviceRole(app), query: "&action=lockout")
            #expect(lockouts.count == 1 && lockouts.first?.payload.traits["kind"] == "account")
            #expect(lockouts.first?.payload.traits["via"] == "totp" && lockouts.first?.userID == session.user.id.uuidString.lowercased())
            time.advance(by: 901)
            #expect(try await Self.verify(client, session, factor: factor, code: totp.code(step: totp.step(at: time.now()))).status == .ok)
        }
    }

    @Test func concurrentVerificationsOfOneCodeAcceptItOnce() async throws {
        let time = ManualTimeSource(Date())
        try await TestServer().run(time: time) { client, app async throws in
            let session = try await client.signUpConfirmed("race@example.com", app: app)
            let (factor, totp, _) = try await Self.enroll(client, session)
            var challenges: [String] = []
            for _ in 0..<4 {
                let challenge = try await client.send(.post, "/factors/\(factor)/challenge", json: "{}", bearer: session.accessToken)
                challenges.append(try challenge.decode(FactorChallenge.self).id.uuidString.lowercased())
            }
            let code = totp.code(step: totp.step(at: time.now()))
            let ids = challenges
            let answers = try await client.concurrently(4, .post, "/factors/\(factor)/verify", bearer: session.accessToken) {
                #"{"challenge_id":"\#(ids[$0])","code":"\#(code)"}"#
            }
            #expect(answers.filter { $0.status == .ok }.count == 1)
            #expect(answers.filter { $0.errorCode == "mfa_verification_failed" }.count == 3)
            let log = try await AuditLogTests.log(client, try await AdminUserTests.serviceRole(app), query: "&action=mfa_verified")
            #expect(log.count == 1)
        }
    }

    @Test func verifyingEndsOtherAAL1SessionsAndRemovalLowersAAL2Ones() async throws {
        let time = ManualTimeSource(Date())
        try await TestServer().run(time: time) { client, app async throws in
            let password = "correct horse battery staple"
            let signIn = #"{"email":"levels@example.com","password":"\#(password)"}"#
            let first = try await client.signUpConfirmed("levels@example.com", password: password, app: app)
            // A session opened before the factor counts, say with a stolen password.
            let before = try await client.send(.post, "/token?grant_type=password", json: signIn).decode(Session.self)
            let (factor, totp, _) = try await Self.enroll(client, first)
            let upgraded = try await Self.verify(client, first, factor: factor, code: totp.code(step: totp.step(at: time.now())))
                .decode(Session.self)
            let ended = try await client.send(
                .post, "/token?grant_type=refresh_token", json: #"{"refresh_token":"\#(before.refreshToken)"}"#)
            #expect(ended.status == .badRequest)
            #expect(try await client.send(.get, "/user", bearer: before.accessToken).status != .ok)
            // Later aal1 sessions are the normal first step of a sign-in and are left alone.
            time.advance(by: 30)
            let second = try await client.send(.post, "/token?grant_type=password", json: signIn).decode(Session.self)
            let raised = try await Self.verify(client, second, factor: factor, code: totp.code(step: totp.step(at: time.now())))
                .decode(Session.self)
            let stillThere = try await client.send(
                .post, "/token?grant_type=refresh_token", json: #"{"refresh_token":"\#(upgraded.refreshToken)"}"#)
            #expect(stillThere.status == .ok)
            let current = try stillThere.decode(Session.self)

            // The factor goes: no session keeps the level it gave.
            let removed = try await client.send(.delete, "/factors/\(factor)", bearer: raised.accessToken)
            #expect(removed.status == .ok)
            // `factor_id` beside `id`: supabase-swift before 2.41.1 reads the id there.
            let answer = try JSONDecoder().decode([String: String].self, from: Data(removed.body.readableBytesView))
            #expect(answer["id"] == "\(factor)".lowercased() && answer["factor_id"] == answer["id"])
            for token in [current.refreshToken, raised.refreshToken] {
                let refreshed = try await client.send(.post, "/token?grant_type=refresh_token", json: #"{"refresh_token":"\#(token)"}"#)
                #expect(refreshed.status == .ok)
                let claims = await app.issuer.verify(try refreshed.decode(Session.self).accessToken)
                #expect(claims?.aal == "aal1" && claims?.amr?.contains { $0.method == "totp" } == false)
            }
        }
    }

    @Test func aVerifiedFactorGuardsCredentialsFactorsAndRecovery() async throws {
        let time = ManualTimeSource(Date())
        try await TestServer().run(time: time) { client, app async throws in
            let password = "correct horse battery staple"
            let first = try await client.signUpConfirmed("guarded@example.com", password: password, app: app)
            let (factor, totp, _) = try await Self.enroll(client, first)
            #expect(try await Self.verify(client, first, factor: factor, code: totp.code(step: totp.step(at: time.now()))).status == .ok)

            // A password sign-in is aal1 now: no credential change, no new factor, no removal.
            let aal1 = try await client.send(
                .post, "/token?grant_type=password", json: #"{"email":"guarded@example.com","password":"\#(password)"}"#
            ).decode(Session.self)
            #expect(await app.issuer.verify(aal1.accessToken)?.aal == "aal1")
            let change = try await client.send(.put, "/user", json: #"{"password":"another long passphrase 7"}"#, bearer: aal1.accessToken)
            #expect(change.status == .unauthorized && change.errorCode == "insufficient_aal")
            let email = try await client.send(.put, "/user", json: #"{"email":"elsewhere@example.com"}"#, bearer: aal1.accessToken)
            #expect(email.errorCode == "insufficient_aal")
            let another = try await client.send(.post, "/factors", json: #"{"factor_type":"totp"}"#, bearer: aal1.accessToken)
            #expect(another.status == .unauthorized && another.errorCode == "insufficient_aal")
            let remove = try await client.send(.delete, "/factors/\(factor)", bearer: aal1.accessToken)
            #expect(remove.errorCode == "insufficient_aal")
            // Metadata alone needs no second factor.
            #expect(try await client.send(.put, "/user", json: #"{"data":{"theme":"dark"}}"#, bearer: aal1.accessToken).status == .ok)

            // A recovery link signs in at aal1 too: the reset needs the second factor.
            time.advance(by: 1)  // the mailbox orders by time
            try await client.send(.post, "/recover", json: #"{"email":"guarded@example.com"}"#)
            let mail = try await RecoveryTests().waitForMail(app, to: "guarded@example.com", subject: "Reset your password")
            let code = String(try #require(mail.message.text.firstMatch(of: /is (\d{6})\./)).1)
            let recovery = try await client.send(
                .post, "/verify", json: #"{"type":"recovery","email":"guarded@example.com","token":"\#(code)"}"#)
            #expect(recovery.status == .ok)
            let recovered = try recovery.decode(Session.self)
            let reset = try await client.send(
                .put, "/user", json: #"{"password":"another long passphrase 7"}"#, bearer: recovered.accessToken)
            #expect(reset.errorCode == "insufficient_aal")
            time.advance(by: 30)
            let stepped = try await Self.verify(client, recovered, factor: factor, code: totp.code(step: totp.step(at: time.now())))
            let aal2 = try stepped.decode(Session.self)
            let done = try await client.send(.put, "/user", json: #"{"password":"another long passphrase 7"}"#, bearer: aal2.accessToken)
            #expect(done.status == .ok)
            let log = try await AuditLogTests.log(client, try await AdminUserTests.serviceRole(app), query: "&action=user_updated_password")
            #expect(log.first?.payload.traits["via"] == "recovery")
            // At aal2 the factor can go; the user is back to one factor.
            let removed = try await client.send(.delete, "/factors/\(factor)", bearer: aal2.accessToken)
            #expect(removed.status == .ok)
            #expect(try removed.decode(UnenrolledFactor.self).id.uuidString.lowercased() == factor)
            let user = try await client.send(.get, "/user", bearer: aal2.accessToken).decode(User.self)
            #expect(user.factors == nil)
            try await app.settleOutbox()
            // Among the newest: the password-changed notice went out at the same (test) instant.
            let recent = try await app.store.mailbox(to: "guarded@example.com", limit: 3).map(\.message.subject)
            #expect(recent.contains("A second factor was removed from your account"))
        }
    }

    @Test func badInputGetsClearErrors() async throws {
        let time = ManualTimeSource(Date())
        try await TestServer(configure: {
            $0.auth.mfa.maxEnrolledFactors = 2
            $0.trustedIPHeader = "X-Real-IP"
        }).run(time: time) { client, app async throws in
            let session = try await client.signUpConfirmed("bad@example.com", app: app)
            let other = try await client.signUpConfirmed("other@example.com", app: app)
            let sms = try await client.send(.post, "/factors", json: #"{"factor_type":"phone"}"#, bearer: session.accessToken)
            // Phone factors are off unless the operator turns them on, as on GoTrue.
            #expect(sms.status == .unprocessableContent && sms.errorCode == "mfa_phone_enroll_not_enabled")
            let colon = try await client.send(
                .post, "/factors", json: #"{"factor_type":"totp","issuer":"a:b"}"#, bearer: session.accessToken)
            #expect(colon.errorCode == "validation_failed")
            #expect(try await client.send(.post, "/factors", json: #"{"factor_type":"totp"}"#).status == .unauthorized)
            #expect(try await client.send(.post, "/factors", json: "{not json", bearer: session.accessToken).status == .badRequest)
            let (factor, totp, _) = try await Self.enroll(client, session, name: "Work")
            let clash = try await client.send(
                .post, "/factors", json: #"{"factor_type":"totp","friendly_name":"Work"}"#, bearer: session.accessToken)
            #expect(clash.status == .unprocessableContent && clash.errorCode == "mfa_factor_name_conflict")
            _ = try await Self.enroll(client, session, name: nil)
            let full = try await client.send(.post, "/factors", json: #"{"factor_type":"totp"}"#, bearer: session.accessToken)
            #expect(full.status == .unprocessableContent && full.errorCode == "too_many_enrolled_mfa_factors")

            for path in ["/factors/not-a-uuid/challenge", "/factors/\(UUID().uuidString)/challenge"] {
                let missing = try await client.send(.post, path, json: "{}", bearer: session.accessToken)
                #expect(missing.status == .notFound && missing.errorCode == "mfa_factor_not_found")
            }
            // Another user's factor does not exist for this one.
            let theirs = try await client.send(.post, "/factors/\(factor)/challenge", json: "{}", bearer: other.accessToken)
            #expect(theirs.errorCode == "mfa_factor_not_found")
            let noChallenge = try await client.send(
                .post, "/factors/\(factor)/verify", json: #"{"code":"123456"}"#, bearer: session.accessToken)
            #expect(noChallenge.status == .badRequest && noChallenge.errorCode == "validation_failed")
            let unknownChallenge = try await client.send(
                .post, "/factors/\(factor)/verify", json: #"{"challenge_id":"\#(UUID().uuidString)","code":"123456"}"#,
                bearer: session.accessToken)
            #expect(unknownChallenge.errorCode == "mfa_challenge_expired")

            let code = totp.code(step: totp.step(at: time.now()))
            let challenge = try await client.send(.post, "/factors/\(factor)/challenge", json: "{}", bearer: session.accessToken)
                .decode(FactorChallenge.self)
            let verifyPath = "/factors/\(factor)/verify"
            let body = #"{"challenge_id":"\#(challenge.id.uuidString)","code":"\#(code)"}"#
            let moved = try await client.send(
                .post, verifyPath, json: body, bearer: session.accessToken, headers: [HTTPField.Name("X-Real-IP")!: "203.0.113.9"])
            #expect(moved.status == .unprocessableContent && moved.errorCode == "mfa_ip_address_mismatch")
            time.advance(by: 301)
            let expired = try await client.send(.post, verifyPath, json: body, bearer: session.accessToken)
            #expect(expired.errorCode == "mfa_challenge_expired")
            // The expired challenge is spent.
            time.advance(by: -301)
            #expect(try await client.send(.post, verifyPath, json: body, bearer: session.accessToken).errorCode == "mfa_challenge_expired")
            let removeMissing = try await client.send(.delete, "/factors/\(UUID().uuidString)", bearer: session.accessToken)
            #expect(removeMissing.status == .notFound)

            // Fields out of shape.
            let long = String(repeating: "x", count: 101)
            for body in [
                #"{"factor_type":"totp","friendly_name":"\#(long)"}"#, #"{"factor_type":"totp","issuer":"\#(long)"}"#,
                #"{"friendly_name":"No type"}"#,
            ] {
                let refused = try await client.send(.post, "/factors", json: body, bearer: other.accessToken)
                #expect(refused.status == .badRequest && refused.errorCode == "validation_failed", "\(body): \(refused.text)")
            }
            let typed = try await client.send(.post, "/factors", json: #"{"factor_type":7}"#, bearer: other.accessToken)
            #expect(typed.status == .badRequest && typed.errorCode == "bad_json")
            let fresh = try await client.send(.post, "/factors/\(factor)/challenge", json: "{}", bearer: session.accessToken)
                .decode(FactorChallenge.self).id.uuidString
            for code in ["", "12345678901234567", "1234\\u0000"] {
                let refused = try await client.send(
                    .post, verifyPath, json: #"{"challenge_id":"\#(fresh)","code":"\#(code)"}"#, bearer: session.accessToken)
                #expect(refused.status == .badRequest || refused.errorCode == "mfa_verification_failed", "\(code)")
                #expect(refused.status != .ok)
            }
            let letters = try await client.send(
                .post, verifyPath, json: #"{"challenge_id":"\#(fresh)","code":"abcdef"}"#, bearer: session.accessToken)
            #expect(letters.status == .unprocessableContent && letters.errorCode == "mfa_verification_failed")
            let notAUUID = try await client.send(
                .post, verifyPath, json: #"{"challenge_id":"nope","code":"123456"}"#, bearer: session.accessToken)
            #expect(notAUUID.status == .badRequest && notAUUID.errorCode == "validation_failed")
            for path in ["/factors/not-a-uuid/verify", "/factors/\(UUID().uuidString)/verify"] {
                let missing = try await client.send(
                    .post, path, json: #"{"challenge_id":"\#(fresh)","code":"123456"}"#, bearer: session.accessToken)
                #expect(missing.status == .notFound && missing.errorCode == "mfa_factor_not_found")
            }
            #expect(try await client.send(.delete, "/factors/not-a-uuid", bearer: session.accessToken).status == .notFound)
            let theirsRemoved = try await client.send(.delete, "/factors/\(factor)", bearer: other.accessToken)
            #expect(theirsRemoved.status == .notFound && theirsRemoved.errorCode == "mfa_factor_not_found")
            #expect(try await client.send(.post, "/factors/\(factor)/challenge", json: "{}").status == .unauthorized)
            #expect(try await client.send(.delete, "/factors/\(factor)").status == .unauthorized)
            // Nothing above touched the factors.
            let user = try await client.send(.get, "/user", bearer: session.accessToken).decode(User.self)
            #expect(user.factors?.count == 2)
        }
    }

    @Test func operatorsListAndRemoveAUsersFactors() async throws {
        try await TestServer().run { client, app async throws in
            let admin = try await AdminUserTests.serviceRole(app)
            let session = try await client.signUpConfirmed("lost-phone@example.com", app: app)
            let (factor, _, _) = try await Self.enroll(client, session)
            let id = session.user.id.uuidString.lowercased()
            let listed = try await client.send(.get, "/admin/users/\(id)/factors", bearer: admin)
            #expect(listed.status == .ok)
            #expect(try listed.decode([Factor].self).map { $0.id.uuidString.lowercased() } == [factor])
            let shown = try await client.send(.get, "/admin/users/\(id)", bearer: admin).decode(User.self)
            #expect(shown.factors?.count == 1)
            let removed = try await client.send(.delete, "/admin/users/\(id)/factors/\(factor)", bearer: admin)
            #expect(removed.status == .ok)
            #expect(try removed.decode(Factor.self).id.uuidString.lowercased() == factor)
            #expect(
                try await client.send(.delete, "/admin/users/\(id)/factors/\(factor)", bearer: admin).errorCode == "mfa_factor_not_found")
            #expect(try await client.send(.get, "/admin/users/\(UUID().uuidString)/factors", bearer: admin).status == .notFound)
            #expect(try await client.send(.get, "/admin/users/\(id)/factors", bearer: session.accessToken).status == .forbidden)
            let log = try await AuditLogTests.log(client, admin, query: "&action=factor_unenrolled")
            #expect(log.first?.payload.actorUsername == "service_role" && log.first?.userID == id)
        }
    }

    /// A lost phone: the operator resets every factor, and the user's sessions end with them.
    @Test func operatorsResetEveryFactorAndSignTheUserOut() async throws {
        try await TestServer().run { client, app async throws in
            let admin = try await AdminUserTests.serviceRole(app)
            let session = try await client.signUpConfirmed("reset@example.com", app: app)
            let bystander = try await client.signUpConfirmed("bystander@example.com", app: app)
            let (first, _, _) = try await Self.enroll(client, session)
            let second = try await client.send(
                .post, "/factors", json: #"{"factor_type":"totp","friendly_name":"second"}"#, bearer: session.accessToken)
            #expect(second.status == .ok)
            let id = session.user.id.uuidString.lowercased()
            #expect(try await client.send(.delete, "/admin/users/\(id)/factors", bearer: session.accessToken).status == .forbidden)
            let reset = try await client.send(.delete, "/admin/users/\(id)/factors", bearer: admin)
            #expect(reset.status == .ok)
            let removed = try reset.decode([Factor].self).map { $0.id.uuidString.lowercased() }
            #expect(removed.count == 2 && removed.contains(first))
            // Signed out everywhere: the refresh token no longer refreshes; the bystander is untouched.
            let refreshed = try await client.send(
                .post, "/token?grant_type=refresh_token", json: #"{"refresh_token":"\#(session.refreshToken)"}"#)
            #expect(refreshed.status == .badRequest)
            #expect(try await client.send(.get, "/user", bearer: bystander.accessToken).status == .ok)
            #expect(try await client.send(.get, "/admin/users/\(id)/factors", bearer: admin).decode([Factor].self).isEmpty)
            let again = try await client.send(.delete, "/admin/users/\(id)/factors", bearer: admin)
            #expect(again.status == .notFound && again.errorCode == "mfa_factor_not_found")
            #expect(try await client.send(.delete, "/admin/users/\(UUID().uuidString)/factors", bearer: admin).status == .notFound)
            let logouts = try await AuditLogTests.log(client, admin, query: "&action=logout")
            #expect(logouts.contains { $0.userID == id && $0.payload.actorUsername == "service_role" })
        }
    }

    /// Recovery codes over HTTP (#39): made at aal2, counted, one signs a new sign-in in at aal2
    /// and is spent; a user token without a factor gets a clear error.
    @Test func recoveryCodesStandInForTheFactor() async throws {
        try await TestServer().run { client, app async throws in
            let session = try await client.signUpConfirmed("codes@example.com", app: app)
            let refused = try await client.send(.post, "/recovery-codes", json: "{}", bearer: session.accessToken)
            #expect(refused.status == .notFound && refused.errorCode == "mfa_factor_not_found")
            let (factor, totp, _) = try await Self.enroll(client, session)
            let verified = try await Self.verify(client, session, factor: factor, code: totp.code(step: totp.step(at: Date())))
            let aal2 = try verified.decode(Session.self)
            let made = try await client.send(.post, "/recovery-codes", json: "{}", bearer: aal2.accessToken)
            #expect(made.status == .ok && made.headers[.cacheControl]?.contains("no-store") == true)
            let codes = try made.decode(RecoveryCodes.self).codes
            #expect(codes.count == 10)
            let status = try await client.send(.get, "/recovery-codes", bearer: aal2.accessToken).decode(RecoveryCodeStatus.self)
            #expect(status == RecoveryCodeStatus(remaining: 10, total: 10))
            // A new sign-in (aal1) uses a code in place of the authenticator app.
            let signIn = try await client.send(
                .post, "/token?grant_type=password", json: #"{"email":"codes@example.com","password":"correct horse battery staple"}"#)
            let aal1 = try signIn.decode(Session.self)
            #expect(try await client.send(.post, "/recovery-codes", json: "{}", bearer: aal1.accessToken).errorCode == "insufficient_aal")
            let used = try await client.send(
                .post, "/recovery-codes/verify", json: #"{"code":"\#(codes[0])"}"#, bearer: aal1.accessToken)
            #expect(used.status == .ok)
            let raised = try used.decode(Session.self)
            let payload = try #require(raised.accessToken.split(separator: ".").dropFirst().first)
            let claims = try JSONDecoder().decode(AccessTokenClaims.self, from: Data(try #require(Base64URL.decode(String(payload)))))
            #expect(claims.aal == "aal2" && claims.amr?.contains { $0.method == "mfa/recovery" } == true)
            let reused = try await client.send(.post, "/recovery-codes/verify", json: #"{"code":"\#(codes[0])"}"#, bearer: aal1.accessToken)
            #expect(reused.status == .unprocessableContent && reused.errorCode == "mfa_verification_failed")
            for bad in [#"{}"#, #"{"code":5}"#, "not json"] {
                #expect(try await client.send(.post, "/recovery-codes/verify", json: bad, bearer: aal1.accessToken).status == .badRequest)
            }
            #expect(try await client.send(.post, "/recovery-codes/verify", json: #"{"code":"x"}"#).status == .unauthorized)
        }
    }
}
