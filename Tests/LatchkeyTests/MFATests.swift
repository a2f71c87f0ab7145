import Foundation
import Latchkey
import LatchkeyTesting
import Testing

@Suite struct MFATests {
    static let factorID = UUID(uuidString: "3A7C6F0E-2B1D-4E5F-8A9B-0C1D2E3F4A5B")!
    static let challengeID = UUID(uuidString: "9F8E7D6C-5B4A-4392-8170-6F5E4D3C2B1A")!
    static let passwordAt = 1_767_225_600
    static let totpAt = 1_767_225_660

    /// An unsigned JWT (`header.payload.signature`) carrying `claims`, as the SDK reads tokens.
    static func jwt(_ claims: [String: JSONValue]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let header = try encoder.encode(["alg": "HS256", "typ": "JWT"] as [String: String])
        return [header, try encoder.encode(claims), Data("not-a-signature".utf8)].map(base64URL).joined(separator: ".")
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func aal1Token() throws -> String {
        try jwt([
            "sub": .string(Fixtures.userID), "aal": "aal1", "session_id": "s-1",
            "amr": [["method": "password", "timestamp": .number(Double(passwordAt))]],
        ])
    }

    static func aal2Token() throws -> String {
        try jwt([
            "sub": .string(Fixtures.userID), "aal": "aal2", "session_id": "s-1",
            "amr": [
                ["method": "totp", "timestamp": .number(Double(totpAt))],
                ["method": "password", "timestamp": .number(Double(passwordAt))],
            ],
        ])
    }

    static func factorJSON(id: UUID = factorID, type: String = "totp", status: String, name: String = "Phone") -> String {
        #"{"id":"\#(id.uuidString.lowercased())","friendly_name":"\#(name)","factor_type":"\#(type)","status":"\#(status)","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}"#
    }

    /// ``Fixtures/userJSON(email:confirmed:)`` with a `factors` list.
    static func userJSON(factors: [String]) -> String {
        #"{"factors":[\#(factors.joined(separator: ","))],"# + Fixtures.userJSON().dropFirst()
    }

    static func sessionJSON(access: String, refresh: String, factors: [String]) -> String {
        let expiry = Int(Date().timeIntervalSince1970) + 3600
        return
            #"{"access_token":"\#(access)","token_type":"bearer","expires_in":3600,"expires_at":\#(expiry),"refresh_token":"\#(refresh)","user":\#(userJSON(factors: factors))}"#
    }

    static func session(access: String, refresh: String = "refresh-1", factors: [String] = []) throws -> Session {
        try WireJSON.makeDecoder().decode(Session.self, from: Data(sessionJSON(access: access, refresh: refresh, factors: factors).utf8))
    }

    static let enrollmentJSON =
        #"{"id":"3a7c6f0e-2b1d-4e5f-8a9b-0c1d2e3f4a5b","type":"totp","friendly_name":"Ada's phone","totp":{"qr_code":"<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>","secret":"JBSWY3DPEHPK3PXP","uri":"otpauth://totp/Acme:ada@example.com?secret=JBSWY3DPEHPK3PXP&issuer=Acme"}}"#

    static let challengeJSON = #"{"id":"9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a","type":"totp","expires_at":1767225960}"#

    @Test func enrollPostsTheFactorWithTheSessionsBearer() async throws {
        let transport = MockTransport()
        await transport.respond(to: "POST", path: "/factors", json: Self.enrollmentJSON)
        let auth = try await Fixtures.client(transport: transport, stored: try Fixtures.session(access: "access-enrol"))
        let enrollment = try await auth.mfa.enroll(friendlyName: "Ada's phone", issuer: "Acme")
        #expect(enrollment.id == Self.factorID)
        #expect(enrollment.type == "totp")
        #expect(enrollment.friendlyName == "Ada's phone")
        #expect(enrollment.totp.secret == "JBSWY3DPEHPK3PXP")
        #expect(enrollment.totp.qrCode.hasPrefix("<svg"))
        #expect(enrollment.totp.uri.hasPrefix("otpauth://totp/"))
        _ = try await auth.mfa.enroll()
        let requests = await transport.requests
        #expect(requests.count == 2)
        #expect(requests[0].method == "POST")
        #expect(requests[0].path == "/factors")
        #expect(requests[0].headers["Authorization"] == "Bearer access-enrol")
        #expect(requests[0].json == ["factor_type": "totp", "friendly_name": "Ada's phone", "issuer": "Acme"])
        #expect(requests[1].json == ["factor_type": "totp"])
    }

    @Test func challengeAndVerifyStoreTheAAL2SessionAndAnnounceIt() async throws {
        let transport = MockTransport()
        let storage = InMemorySessionStorage()
        let factor = Self.factorJSON(status: "verified")
        let aal1 = try Self.aal1Token()
        let aal2 = try Self.aal2Token()
        let path = "/factors/3a7c6f0e-2b1d-4e5f-8a9b-0c1d2e3f4a5b"
        await transport.respond(to: "POST", path: path + "/challenge", json: Self.challengeJSON)
        await transport.respond(
            to: "POST", path: path + "/verify", json: Self.sessionJSON(access: aal2, refresh: "refresh-aal2", factors: [factor]))
        let auth = try await Fixtures.client(
            transport: transport, storage: storage, stored: try Self.session(access: aal1, factors: [factor]))
        var events = auth.authStateChanges.makeAsyncIterator()
        let first = await events.next()
        #expect(first?.event == .initialSession)

        let before = try await auth.mfa.assuranceLevel()
        #expect(before.current == .aal1)
        #expect(before.next == .aal2)

        let session = try await auth.mfa.challengeAndVerify(factorID: Self.factorID, code: "123456")
        #expect(session.accessToken == aal2)
        #expect(session.refreshToken == "refresh-aal2")

        let requests = await transport.requests
        #expect(requests.map(\.method) == ["POST", "POST"])
        #expect(requests.map(\.path) == [path + "/challenge", path + "/verify"])
        #expect(requests.allSatisfy { $0.headers["Authorization"] == "Bearer \(aal1)" })
        #expect(requests[0].json == [:])
        #expect(requests[1].json == ["challenge_id": "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a", "code": "123456"])

        let change = await events.next()
        #expect(change?.event == .mfaChallengeVerified)
        #expect(change?.session?.refreshToken == "refresh-aal2")
        #expect(await auth.currentSession?.accessToken == aal2)
        let saved = try #require(await storage.load(key: "latchkey.session"))
        let persisted = try WireJSON.makeDecoder().decode(Session.self, from: saved)
        #expect(persisted.accessToken == aal2)
        #expect(persisted.refreshToken == "refresh-aal2")

        let after = try await auth.mfa.assuranceLevel()
        #expect(after.current == .aal2)
        #expect(after.next == .aal2)
        #expect(after.currentAuthenticationMethods.map(\.method) == ["totp", "password"])
    }

    @Test func verifySendsTheChallengeItIsGiven() async throws {
        let transport = MockTransport()
        let path = "/factors/3a7c6f0e-2b1d-4e5f-8a9b-0c1d2e3f4a5b/verify"
        await transport.respond(to: "POST", path: path, json: Self.sessionJSON(access: try Self.aal2Token(), refresh: "r-2", factors: []))
        let auth = try await Fixtures.client(transport: transport, stored: try Fixtures.session())
        try await auth.mfa.verify(factorID: Self.factorID, challengeID: Self.challengeID, code: "000111")
        let request = try #require(await transport.requests.first)
        #expect(request.path == path)
        #expect(request.headers["Authorization"] == "Bearer access-1")
        #expect(request.json == ["challenge_id": "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a", "code": "000111"])
        #expect(await transport.count("POST", "/factors/3a7c6f0e-2b1d-4e5f-8a9b-0c1d2e3f4a5b/challenge") == 0)
        #expect(await auth.currentSession?.refreshToken == "r-2")
    }

    @Test func unenrollDeletesAndRefreshesTheSession() async throws {
        let transport = MockTransport()
        let path = "/factors/3a7c6f0e-2b1d-4e5f-8a9b-0c1d2e3f4a5b"
        await transport.respond(to: "DELETE", path: path, json: #"{"id":"3a7c6f0e-2b1d-4e5f-8a9b-0c1d2e3f4a5b"}"#)
        // The server lowered the session to aal1 when the verified factor went.
        await transport.respond(
            to: "POST", path: "/token", json: Self.sessionJSON(access: try Self.aal1Token(), refresh: "refresh-2", factors: []))
        let stored = try Self.session(access: try Self.aal2Token(), factors: [Self.factorJSON(status: "verified")])
        let auth = try await Fixtures.client(transport: transport, stored: stored)
        #expect(try await auth.mfa.assuranceLevel().next == .aal2)

        let removed = try await auth.mfa.unenroll(factorID: Self.factorID)
        #expect(removed.id == Self.factorID)
        let requests = await transport.requests
        #expect(requests.map { "\($0.method) \($0.path)" } == ["DELETE \(path)", "POST /token"])
        #expect(requests[0].headers["Authorization"] == "Bearer \(stored.accessToken)")
        #expect(requests[0].body == nil)
        #expect(await auth.currentUser?.factors == [])
        let level = try await auth.mfa.assuranceLevel()
        #expect(level.current == .aal1 && level.next == .aal1)
    }

    @Test func listFactorsSplitsAllFromVerifiedTOTP() async throws {
        let verifiedTOTP = UUID()
        let unverifiedTOTP = UUID()
        let verifiedPhone = UUID()
        let transport = MockTransport()
        await transport.respond(
            to: "GET", path: "/user",
            json: Self.userJSON(factors: [
                Self.factorJSON(id: unverifiedTOTP, status: "unverified", name: "Half-done"),
                Self.factorJSON(id: verifiedTOTP, status: "verified"),
                Self.factorJSON(id: verifiedPhone, type: "phone", status: "verified", name: "SMS"),
            ]))
        let auth = try await Fixtures.client(transport: transport, stored: try Fixtures.session())
        let factors = try await auth.mfa.listFactors()
        #expect(factors.all.map(\.id) == [unverifiedTOTP, verifiedTOTP, verifiedPhone])
        #expect(factors.totp.map(\.id) == [verifiedTOTP])
        let request = try #require(await transport.requests.first)
        #expect(request.method == "GET")
        #expect(request.path == "/user")
        #expect(request.headers["Authorization"] == "Bearer access-1")
        #expect(await auth.currentUser?.factors?.count == 3)
    }

    @Test func assuranceLevelReadsTheStoredTokenWithoutTheNetwork() async throws {
        let transport = MockTransport()
        let stored = try Self.session(
            access: try Self.aal1Token(), factors: [Self.factorJSON(status: "unverified"), Self.factorJSON(id: UUID(), status: "verified")])
        let auth = try await Fixtures.client(transport: transport, stored: stored)
        let level = try await auth.mfa.assuranceLevel()
        #expect(level.current == .aal1)
        #expect(level.next == .aal2)
        #expect(
            level.currentAuthenticationMethods == [
                AuthenticationMethodReference(method: "password", timestamp: Date(timeIntervalSince1970: Double(Self.passwordAt)))
            ])
        #expect(await transport.requests.isEmpty)
    }

    @Test func assuranceLevelNextIsTheCurrentLevelWithoutAVerifiedFactor() async throws {
        let onlyUnverified = try Self.session(access: try Self.aal1Token(), factors: [Self.factorJSON(status: "unverified")])
        let auth = try await Fixtures.client(stored: onlyUnverified)
        let level = try await auth.mfa.assuranceLevel()
        #expect(level.current == .aal1)
        #expect(level.next == .aal1)
        // As supabase-js: with no verified factor, the next level is the current one.
        let stale = try Self.session(access: try Self.aal2Token(), factors: [])
        #expect(try await Fixtures.client(stored: stale).mfa.assuranceLevel().next == .aal2)
    }

    @Test func assuranceLevelWithoutASessionOrAReadableToken() async throws {
        let signedOut = try await Fixtures.client()
        #expect(try await signedOut.mfa.assuranceLevel() == AssuranceLevel(current: nil, next: nil, currentAuthenticationMethods: []))

        let opaque = try await Fixtures.client(stored: try Fixtures.session(access: "not-a-jwt"))
        let level = try await opaque.mfa.assuranceLevel()
        #expect(level.current == nil)
        #expect(level.next == .aal1)
        #expect(level.currentAuthenticationMethods.isEmpty)

        let odd = try Self.jwt(["aal": "aal3", "amr": ["otp", ["timestamp": 1], 7]])
        let oddLevel = try await Fixtures.client(stored: try Fixtures.session(access: odd)).mfa.assuranceLevel()
        #expect(oddLevel.current == nil)
        #expect(oddLevel.currentAuthenticationMethods == [AuthenticationMethodReference(method: "otp", timestamp: nil)])
    }

    @Test func callsNeedASignedInSession() async throws {
        let transport = MockTransport()
        let auth = try await Fixtures.client(transport: transport)
        do {
            _ = try await auth.mfa.enroll()
            Issue.record("expected session_missing")
        } catch let error as LatchkeyError {
            #expect(error.isSessionMissing)
        }
        #expect(await transport.requests.isEmpty)
    }

    enum Call: String, Sendable {
        case enroll, challenge, verify, unenroll
    }

    struct ErrorCase: Sendable, CustomStringConvertible {
        let call: Call
        let status: Int
        let code: String
        let check: @Sendable (LatchkeyError) -> Bool
        var description: String { "\(call) \(status) \(code)" }
    }

    static let errorCases: [ErrorCase] = [
        ErrorCase(call: .enroll, status: 422, code: "mfa_factor_name_conflict") { $0.isMFAFactorNameConflict },
        ErrorCase(call: .enroll, status: 422, code: "too_many_enrolled_mfa_factors") { $0.isTooManyMFAFactors },
        ErrorCase(call: .enroll, status: 401, code: "insufficient_aal") { $0.isInsufficientAAL },
        ErrorCase(call: .challenge, status: 404, code: "mfa_factor_not_found") { $0.isMFAFactorNotFound },
        ErrorCase(call: .verify, status: 422, code: "mfa_verification_failed") { $0.isMFAVerificationFailed },
        ErrorCase(call: .verify, status: 422, code: "mfa_challenge_expired") { $0.isMFAChallengeExpired },
        ErrorCase(call: .verify, status: 404, code: "mfa_factor_not_found") { $0.isMFAFactorNotFound },
        ErrorCase(call: .verify, status: 429, code: "over_request_rate_limit") { $0.isRateLimited },
        ErrorCase(call: .unenroll, status: 401, code: "insufficient_aal") { $0.isInsufficientAAL },
    ]

    /// Every MFA check, so each case can show that only its own is true.
    static let mfaChecks: [String: @Sendable (LatchkeyError) -> Bool] = [
        "isInsufficientAAL": { $0.isInsufficientAAL }, "isMFAVerificationFailed": { $0.isMFAVerificationFailed },
        "isMFAChallengeExpired": { $0.isMFAChallengeExpired }, "isMFAFactorNotFound": { $0.isMFAFactorNotFound },
        "isMFAFactorNameConflict": { $0.isMFAFactorNameConflict }, "isTooManyMFAFactors": { $0.isTooManyMFAFactors },
        "isRateLimited": { $0.isRateLimited },
    ]

    @Test(arguments: errorCases)
    func serverErrorsMapToTypedCodesAndKeepTheSession(testCase: ErrorCase) async throws {
        let transport = MockTransport()
        let path = "/factors/3a7c6f0e-2b1d-4e5f-8a9b-0c1d2e3f4a5b"
        let (method, route): (String, String) =
            switch testCase.call {
            case .enroll: ("POST", "/factors")
            case .challenge: ("POST", path + "/challenge")
            case .verify: ("POST", path + "/verify")
            case .unenroll: ("DELETE", path)
            }
        await transport.respond(to: method, path: route, status: testCase.status, json: Fixtures.error(testCase.code, "Readable"))
        let stored = try Fixtures.session()
        let auth = try await Fixtures.client(transport: transport, stored: stored)
        do {
            switch testCase.call {
            case .enroll: _ = try await auth.mfa.enroll(friendlyName: "Phone")
            case .challenge: _ = try await auth.mfa.challenge(factorID: Self.factorID)
            case .verify: _ = try await auth.mfa.verify(factorID: Self.factorID, challengeID: Self.challengeID, code: "999999")
            case .unenroll: _ = try await auth.mfa.unenroll(factorID: Self.factorID)
            }
            Issue.record("expected \(testCase.code)")
        } catch let error as LatchkeyError {
            #expect(error.code.rawValue == testCase.code)
            #expect(error.status == testCase.status)
            #expect(error.message == "Readable")
            #expect(testCase.check(error), "\(error)")
            let alsoTrue = Self.mfaChecks.filter { $0.value(error) }.map(\.key)
            #expect(alsoTrue.count == 1, "\(testCase): \(alsoTrue)")
        }
        #expect(await auth.currentSession == stored)
        #expect(await transport.count("GET", "/user") == 0)
    }

    @Test func completionHandlersDeliverMFAResults() async throws {
        let transport = MockTransport()
        await transport.respond(to: "GET", path: "/user", json: Self.userJSON(factors: [Self.factorJSON(status: "verified")]))
        await transport.respond(
            to: "POST", path: "/factors/3a7c6f0e-2b1d-4e5f-8a9b-0c1d2e3f4a5b/verify", status: 422,
            json: Fixtures.error("mfa_verification_failed", "Invalid TOTP code entered"))
        let auth = try await Fixtures.client(transport: transport, stored: try Fixtures.session())
        let listed = await withCheckedContinuation { continuation in
            auth.mfa.listFactors { continuation.resume(returning: $0) }
        }
        #expect(try listed.get().totp.map(\.id) == [Self.factorID])
        let verified = await withCheckedContinuation { continuation in
            auth.mfa.verify(factorID: Self.factorID, challengeID: Self.challengeID, code: "1") { continuation.resume(returning: $0) }
        }
        guard case .failure(let error as LatchkeyError) = verified else {
            Issue.record("expected failure")
            return
        }
        #expect(error.isMFAVerificationFailed)
    }

    /// Phone factors (#39): the enrolment posts the number, the challenge its channel, and the
    /// lists and errors name them.
    @Test func aPhoneFactorIsEnrolledChallengedOverItsChannelAndListed() async throws {
        let transport = MockTransport()
        let path = "/factors/3a7c6f0e-2b1d-4e5f-8a9b-0c1d2e3f4a5b"
        await transport.respond(
            to: "POST", path: "/factors",
            json: #"{"id":"3a7c6f0e-2b1d-4e5f-8a9b-0c1d2e3f4a5b","type":"phone","friendly_name":"","phone":"+44 7700 900123"}"#)
        await transport.respond(
            to: "POST", path: path + "/challenge",
            json: #"{"id":"9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a","type":"phone","expires_at":1767225960}"#)
        let auth = try await Fixtures.client(transport: transport, stored: try Fixtures.session(access: "access-phone"))
        let enrolled = try await auth.mfa.enrollPhone("+44 7700 900123")
        #expect(enrolled.id == Self.factorID && enrolled.type == "phone" && enrolled.phone == "+44 7700 900123")
        let challenge = try await auth.mfa.challenge(factorID: enrolled.id, channel: .whatsapp)
        #expect(challenge.id == Self.challengeID && challenge.type == "phone")
        _ = try await auth.mfa.challenge(factorID: enrolled.id)
        let requests = await transport.requests
        #expect(requests[0].json == ["factor_type": "phone", "phone": "+44 7700 900123"])
        #expect(requests[1].json == ["channel": "whatsapp"])
        #expect(requests[2].json == [:])

        let phone =
            #"{"id":"\#(Self.factorID.uuidString.lowercased())","friendly_name":"","factor_type":"phone","status":"verified","phone":"+••••••••0123","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}"#
        let factors = try WireJSON.makeDecoder().decode(
            [Factor].self, from: Data("[\(phone),\(Self.factorJSON(id: Self.challengeID, status: "verified"))]".utf8))
        let list = FactorList(all: factors)
        #expect(list.phone.map(\.phone) == ["+••••••••0123"] && list.totp.map(\.id) == [Self.challengeID])
        #expect(LatchkeyError(code: .mfaVerifiedFactorExists, message: "").isMFAVerifiedFactorExists)
        #expect(LatchkeyError(code: .mfaPhoneVerifyNotEnabled, message: "").isMFAPhoneDisabled)
    }

    /// Recovery codes: made, counted, and one used in place of the factor stores the aal2 session.
    @Test func recoveryCodesAreMadeCountedAndUsed() async throws {
        let transport = MockTransport()
        await transport.respond(to: "POST", path: "/recovery-codes", json: #"{"codes":["abcde-fghjk","mnpqr-stuvw"]}"#)
        await transport.respond(to: "GET", path: "/recovery-codes", json: #"{"remaining":1,"total":2}"#)
        let aal2 = try Self.aal2Token()
        await transport.respond(
            to: "POST", path: "/recovery-codes/verify", json: Self.sessionJSON(access: aal2, refresh: "refresh-recovered", factors: []))
        let auth = try await Fixtures.client(transport: transport, stored: try Fixtures.session(access: "access-codes"))
        #expect(try await auth.mfa.generateRecoveryCodes().codes == ["abcde-fghjk", "mnpqr-stuvw"])
        #expect(try await auth.mfa.recoveryCodeStatus() == RecoveryCodeStatus(remaining: 1, total: 2))
        let session = try await auth.mfa.verifyRecoveryCode("abcde-fghjk")
        #expect(session.refreshToken == "refresh-recovered")
        #expect(await auth.currentSession?.refreshToken == "refresh-recovered")
        let requests = await transport.requests
        #expect(requests.map(\.path) == ["/recovery-codes", "/recovery-codes", "/recovery-codes/verify"])
        #expect(requests[2].json == ["code": "abcde-fghjk"])
        #expect(requests.allSatisfy { $0.headers["Authorization"] == "Bearer access-codes" })
    }
}
