import Foundation
import LatchkeyAPI
import Synchronization
import Testing

@testable import LatchkeyCore

/// What the use cases do with the operator's hooks' answers: refusals, verdicts, claims, and the
/// audit log of every call. The HTTP side is tested over a socket (`test_hooks.py`).
@Suite struct HooksTests {
    static let userID = UUID()

    /// Hooks answering with `answer`, the payloads they were sent, and the store they record in.
    struct Fixture {
        let memory = InMemoryStore()
        let time = ManualTimeSource()
        let sent = Sent()
        let hooks: Hooks

        init(
            _ enabled: Set<HookName> = Set(HookName.allCases), protectsClaims: Bool = true,
            answer: @escaping @Sendable (HookName, [String: JSONValue]) throws -> [String: JSONValue]
        ) {
            let sent = self.sent
            hooks = Hooks(
                enabled: enabled,
                caller: ScriptedHookCaller { name, payload in
                    sent.calls.withLock { $0.append((name, payload)) }
                    return try answer(name, payload)
                }, store: memory, time: time, random: SeededRandomSource(seed: 3), protectsClaims: protectsClaims)
        }

        var calls: [AuditEvent] {
            get async throws { try await memory.auditEvents(AuditQuery(actions: [.hookCalled], limit: 100)).events.reversed() }
        }
    }

    /// The payloads hooks were sent.
    final class Sent: Sendable {
        let calls = Mutex<[(HookName, [String: JSONValue])]>([])
    }

    static func claims(exp: Int = 2_000_000_000) -> AccessTokenClaims {
        AccessTokenClaims(
            iss: "http://localhost:9999", sub: userID.uuidString.lowercased(), aud: "authenticated", exp: exp, iat: 1_999_996_400,
            email: "ada@example.com", phone: "", appMetadata: ["provider": "email"], userMetadata: [:], role: "authenticated",
            aal: "aal1", amr: [AuthenticationMethod(method: "password", timestamp: 1_999_996_400)], sessionID: UUID().uuidString,
            isAnonymous: false)
    }

    @Test func aRefusalCarriesTheHooksStatusAndMessageAndIsRecorded() async throws {
        let f = Fixture { _, _ in ["error": ["http_code": 403, "message": "Only company addresses may sign up"]] }
        let user = UserRecord(
            id: Self.userID, aud: "authenticated", role: "authenticated", email: "ada@example.com", passwordHash: nil, appMetadata: [:],
            userMetadata: [:], createdAt: f.time.now(), updatedAt: f.time.now())
        await #expect(throws: AuthError.self) { try await f.hooks.beforeUserCreated(user) }
        do {
            try await f.hooks.beforeUserCreated(user)
        } catch let error as AuthError {
            #expect(error.code == .hookRejected && error.status == 403 && error.message == "Only company addresses may sign up")
        }
        let payload = try #require(f.sent.calls.withLock { $0.first?.1 })
        #expect(payload["user"]?.objectValue?["email"] == "ada@example.com")
        #expect(payload["metadata"]?.objectValue?["name"] == "before-user-created")
        let calls = try await f.calls
        #expect(calls.count == 2 && calls.allSatisfy { $0.details["outcome"] == "rejected" && $0.details["hook"] == "before-user-created" })
        #expect(calls.first?.userID == Self.userID)
    }

    /// GoTrue's reading of an error object: no message is no refusal; a status outside 4xx–5xx is 500.
    static let refusals: [([String: JSONValue], Int)] = [
        (["error": ["message": "no"]], 500),
        (["error": ["http_code": 200, "message": "no"]], 500),
        (["error": ["http_code": 429, "message": "slow down"]], 429),
        (["error": ["http_code": 1e300, "message": "huge"]], 500),
    ]

    @Test(arguments: refusals)
    func refusalStatuses(_ answer: [String: JSONValue], _ status: Int) {
        #expect(Hooks.refusal(in: answer)?.status == status)
    }

    @Test func anErrorWithoutAMessageIsNoRefusal() {
        #expect(Hooks.refusal(in: ["error": ["http_code": 400]]) == nil)
        #expect(Hooks.refusal(in: ["error": "text"]) == nil)
        #expect(Hooks.refusal(in: [:]) == nil)
    }

    @Test func aFailedCallIsRecordedAndRethrown() async throws {
        let f = Fixture { _, _ in
            var error = AuthError(.hookTimeout, "Failed to reach hook within maximum time of 5.000000 seconds")
            error.status = 422
            throw error
        }
        await #expect(throws: AuthError.self) { _ = try await f.hooks.passwordAttempt(userID: Self.userID, valid: true) }
        let calls = try await f.calls
        #expect(calls.count == 1 && calls[0].details["outcome"] == "failed" && calls[0].details["error_code"] == "hook_timeout")
    }

    @Test func verificationVerdicts() async throws {
        let f = Fixture { name, payload in
            guard payload["valid"] == .bool(false) else { return ["decision": "continue"] }
            return name == .passwordVerificationAttempt
                ? ["decision": "reject", "message": "Too many guesses", "should_logout_user": true] : ["decision": "reject"]
        }
        #expect(try await f.hooks.passwordAttempt(userID: Self.userID, valid: true) == .proceed)
        #expect(try await f.hooks.passwordAttempt(userID: Self.userID, valid: false) == .reject(message: "Too many guesses", signOut: true))
        let mfa = try await f.hooks.mfaAttempt(userID: Self.userID, factorID: UUID(), factorType: "totp", valid: false)
        #expect(mfa == .reject(message: "Further MFA verification attempts will be rejected.", signOut: true))
        let sent = f.sent.calls.withLock { $0.map(\.1) }
        #expect(sent[0]["user_id"] == .string(Self.userID.uuidString.lowercased()) && sent[2]["factor_type"] == "totp")
        // Hooks that are off are never called.
        let off = Fixture([]) { _, _ in ["decision": "reject"] }
        #expect(try await off.hooks.passwordAttempt(userID: Self.userID, valid: false) == .proceed)
        #expect(off.sent.calls.withLock { $0.isEmpty })
    }

    @Test func addedClaimsAreSignedAsTheHookAnsweredThem() async throws {
        let f = Fixture { _, payload in
            var claims = try #require(payload["claims"]?.objectValue)
            claims["tier"] = "gold"
            claims["role"] = "premium"
            claims["exp"] = .number(1_999_999_000)
            return ["claims": .object(claims)]
        }
        let original = Self.claims()
        let customized = try await f.hooks.customize(original, userID: Self.userID, method: "password")
        #expect(customized.custom?["tier"] == "gold" && customized.role == "premium" && customized.exp == 1_999_999_000)
        #expect(customized.sub == original.sub && customized.sessionID == original.sessionID)
        let payload = try #require(f.sent.calls.withLock { $0.first?.1 })
        #expect(payload["authentication_method"] == "password" && payload["claims"]?.objectValue?["session_id"] != nil)
        // Signed as answered: the extra claim is in the token's JSON.
        let json = try #require(String(data: try JSONEncoder().encode(customized), encoding: .utf8))
        #expect(json.contains("\"tier\":\"gold\""))
    }

    static let protectedChanges: [(String, JSONValue)] = [
        ("sub", JSONValue.string(UUID().uuidString)), ("session_id", .string("another")), ("aal", .string("aal2")),
        ("is_anonymous", .bool(true)), ("iss", .string("https://evil.example")), ("exp", .number(2_000_000_001)),
    ]

    @Test(arguments: protectedChanges)
    func protectedClaimsMayNotChange(_ name: String, _ value: JSONValue) async throws {
        let f = Fixture { _, payload in
            var claims = try #require(payload["claims"]?.objectValue)
            claims[name] = value
            return ["claims": .object(claims)]
        }
        do {
            _ = try await f.hooks.customize(Self.claims(), userID: Self.userID, method: "password")
            Issue.record("a change of \(name) was signed")
        } catch let error as AuthError {
            #expect(error.status == 500 && error.message.contains(name))
        }
        // GoTrue's rule, by the setting: any change its schema allows.
        let lenient = Fixture(protectsClaims: false) { _, payload in
            var claims = try #require(payload["claims"]?.objectValue)
            claims[name] = value
            return ["claims": .object(claims)]
        }
        let signed = try await lenient.hooks.customize(Self.claims(), userID: Self.userID, method: "password")
        #expect(signed.custom?[name] == value)
    }

    /// A role-mapping hook copying `user_metadata.role` (which the user writes) into `role` must
    /// not mint operators, with claim protection on or off; another role is the hook's to give.
    @Test(arguments: [true, false])
    func anOperatorRoleIsNeverGivenToAUsersToken(_ protects: Bool) async throws {
        for role in ["service_role", "supabase_admin"] {
            let f = Fixture(protectsClaims: protects) { _, payload in
                var claims = try #require(payload["claims"]?.objectValue)
                claims["role"] = .string(role)
                return ["claims": .object(claims)]
            }
            await #expect { try await f.hooks.customize(Self.claims(), userID: Self.userID, method: "password") } throws: { error in
                (error as? AuthError).map { $0.status == 500 && $0.message.contains("role may not be changed") } ?? false
            }
        }
        let premium = Fixture(protectsClaims: protects) { _, payload in
            var claims = try #require(payload["claims"]?.objectValue)
            claims["role"] = "premium"
            return ["claims": .object(claims)]
        }
        #expect(try await premium.hooks.customize(Self.claims(), userID: Self.userID, method: "password").role == "premium")
    }

    /// A wrong password for an unknown account takes as long as the password hook has been
    /// taking for known ones: no hook call, the same wait.
    @Test func anUnknownAccountWaitsAsLongAsTheHookTakes() async throws {
        let waits = Mutex<[Duration]>([])
        let timings = HookTimings()
        #expect(timings.typical(.passwordVerificationAttempt) == nil)
        timings.record(.passwordVerificationAttempt, .milliseconds(160))
        timings.record(.passwordVerificationAttempt, .milliseconds(80))
        #expect(timings.typical(.passwordVerificationAttempt) == .milliseconds(150))
        let hooks = Hooks(
            enabled: [.passwordVerificationAttempt],
            caller: ScriptedHookCaller { _, _ in
                try await Task.sleep(for: .milliseconds(40))
                return ["decision": "continue"]
            }, store: nil, time: SystemTimeSource(), random: SystemRandomSource(),
            pause: { duration in waits.withLock { $0.append(duration) } })
        // Before any call there is nothing to match.
        await hooks.passwordAttemptOfUnknownAccount()
        #expect(waits.withLock { $0.isEmpty })
        _ = try await hooks.passwordAttempt(userID: UUID(), valid: false)
        await hooks.passwordAttemptOfUnknownAccount()
        let waited = try #require(waits.withLock { $0.first })
        #expect(waited >= .milliseconds(40))
        // Off, nothing waits.
        await Hooks.none.passwordAttemptOfUnknownAccount()
    }

    static let claimlessAnswers: [([String: JSONValue], String)] = [
        (["claims": "text"], "must be an object"),
        ([:], "claims field is missing"),
    ]

    @Test(arguments: claimlessAnswers)
    func answersWithoutClaimsFail(_ answer: [String: JSONValue], _ message: String) async throws {
        let f = Fixture { _, _ in answer }
        await #expect { try await f.hooks.customize(Self.claims(), userID: Self.userID, method: "otp") } throws: { error in
            (error as? AuthError)?.message.contains(message) == true
        }
    }

    @Test func claimsMustKeepGoTruesSchema() {
        var claims = (Hooks.json(Self.claims()).objectValue)!
        #expect(Hooks.schemaProblems(claims).isEmpty)
        claims["email"] = nil
        claims["exp"] = 1.5
        claims["app_metadata"] = "flat"
        claims["amr"] = [1]
        #expect(
            Hooks.schemaProblems(claims) == ["amr: invalid type", "app_metadata: invalid type", "email is required", "exp: invalid type"])
    }

    /// A hook that breaks the claims fails the sign-in, and the session just stored for it goes
    /// (none of its tokens left the server); a refreshed session stays.
    @Test func aFailedTokenDiscardsTheNewSessionOnly() async throws {
        let f = Fixture { _, _ in ["claims": ["sub": "someone else"]] }
        let now = f.time.now()
        let user = UserRecord(
            id: Self.userID, aud: "authenticated", role: "authenticated", email: "ada@example.com", passwordHash: nil, appMetadata: [:],
            userMetadata: [:], createdAt: now, updatedAt: now)
        f.memory.add(user)
        let answers = SessionAnswers(
            issuer: InMemoryTokenIssuer(time: f.time), serverSecret: TestSessionParts.serverSecret, jwt: JWTSettings(),
            externalURL: "http://localhost:9999", accounts: f.memory, time: f.time, random: SeededRandomSource(seed: 4), hooks: f.hooks)
        let fresh = SessionRecord(
            id: UUID(), userID: user.id, amr: [AuthenticationMethod(method: "password", timestamp: 0)], refreshSalt: [1],
            createdAt: now, updatedAt: now)
        var refreshed = SessionRecord(
            id: UUID(), userID: user.id, amr: [AuthenticationMethod(method: "password", timestamp: 0)], refreshSalt: [2],
            createdAt: now, updatedAt: now)
        refreshed.refreshCounter = 3
        refreshed.refreshedAt = now
        f.memory.add(fresh)
        f.memory.add(refreshed)
        await #expect(throws: AuthError.self) { _ = try await answers.answer(user: user, session: fresh) }
        await #expect(throws: AuthError.self) { _ = try await answers.answer(user: user, session: refreshed) }
        #expect(f.memory.session(id: fresh.id) == nil)
        #expect(f.memory.session(id: refreshed.id) != nil)
    }

    /// The spec's own example (standard-webhooks, `spec/standard-webhooks.md`).
    @Test func signaturesAreStandardWebhooks() throws {
        let secret = try #require(WebhookSecret("v1,whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
        let signature = secret.signature(
            id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: Array(#"{"test": 2432232314}"#.utf8))
        #expect(signature == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
        let two = try #require(
            WebhookSecret.list("v1,whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw|v1,whsec_" + String(repeating: "A", count: 32)))
        #expect(WebhookSecret.header(two, id: "m", timestamp: 1, body: []).split(separator: " ").count == 2)
    }

    @Test(arguments: [
        "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "v1,whsec_short", "v1,whsec_" + String(repeating: "A", count: 89),
        "v1,whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2La!aSw",
        "v1a,whpk_" + String(repeating: "A", count: 44) + ":whsk_" + String(repeating: "A", count: 44),
        "v1,whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaS",
    ])
    func malformedSecretsAreRefused(_ text: String) {
        #expect(WebhookSecret(text) == nil)
    }
}
