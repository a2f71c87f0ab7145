import Foundation
import LatchkeyAPI

/// The operator's hooks as the use cases call them (GoTrue's `GOTRUE_HOOK_*`). Every call carries
/// GoTrue's `metadata` (`uuid`, `time`, `name`, `ip_address`), runs outside any store transaction
/// (the caller bounds it in time), and is recorded in the audit log as `hook_called` with the hook,
/// the outcome (`ok`, `rejected`, `failed`) and its duration. A hook refuses with
/// `{"error": {"http_code": 4xx, "message": "…"}}`: the request then fails with `hook_rejected`,
/// the hook's status and its message.
///
/// ``none`` calls nothing: every question is answered as if no hook were set.
public struct Hooks: Sendable {
    /// The hooks that are on.
    public let enabled: Set<HookName>
    let caller: any HookCaller
    /// Where calls are recorded, and where a session is discarded when its token's claims could
    /// not be made.
    let store: (any HookStore)?
    let time: any TimeSource
    let random: any RandomSource
    /// Whether `customize-access-token` may only add claims and change the user's own ones
    /// (``customize(_:userID:method:)``); off, it may change any claim, as GoTrue lets it.
    let protectsClaims: Bool
    /// The roles that make a token an operator's (`GOTRUE_JWT_ADMIN_ROLES`): a hook may not give
    /// one to a user's token, whatever ``protectsClaims`` says.
    let operatorRoles: Set<String>
    /// How long each hook has been taking (``HookTimings``), so a check that calls no hook can take
    /// as long as one that does.
    let timings: HookTimings
    /// Waits (``passwordAttemptOfUnknownAccount()``); a test's records the waits instead.
    let pause: @Sendable (Duration) async -> Void

    public init(
        enabled: Set<HookName>, caller: any HookCaller, store: (any HookStore)?, time: any TimeSource, random: any RandomSource,
        protectsClaims: Bool = true, operatorRoles: Set<String> = ["service_role", "supabase_admin"],
        pause: @escaping @Sendable (Duration) async -> Void = { try? await Task.sleep(for: $0) }
    ) {
        self.operatorRoles = operatorRoles
        self.timings = HookTimings()
        self.pause = pause
        self.enabled = enabled
        self.caller = caller
        self.store = store
        self.time = time
        self.random = random
        self.protectsClaims = protectsClaims
    }

    /// No hooks.
    public static let none = Hooks(
        enabled: [], caller: ScriptedHookCaller { _, _ in [:] }, store: nil, time: SystemTimeSource(), random: SystemRandomSource())

    public func isEnabled(_ name: HookName) -> Bool { enabled.contains(name) }

    /// What a verification-attempt hook decided.
    public enum Verdict: Sendable, Equatable {
        /// Go on as the check decided.
        case proceed
        /// Refuse with `message`; `signOut` ends every session of the user first.
        case reject(message: String, signOut: Bool)
    }

    // MARK: The hooks

    /// `before-user-created`: the hook sees the user about to be stored, as the API shows users,
    /// and may refuse it. Nothing is stored before it answers.
    public func beforeUserCreated(_ user: UserRecord, identities: [IdentityRecord] = []) async throws {
        guard isEnabled(.beforeUserCreated) else { return }
        _ = try await invoke(.beforeUserCreated, ["user": Self.json(user.wire(identities: identities))], userID: user.id)
    }

    /// `password-verification`: every password check of a known user, right or wrong; the hook
    /// may reject it (and end the user's sessions).
    public func passwordAttempt(userID: UUID, valid: Bool) async throws -> Verdict {
        guard isEnabled(.passwordVerificationAttempt) else { return .proceed }
        let answer = try await invoke(
            .passwordVerificationAttempt, ["user_id": .string(userID.lowercasedString), "valid": .bool(valid)], userID: userID)
        guard answer["decision"] == "reject" else { return .proceed }
        return .reject(
            message: Self.message(answer, otherwise: "Further password verification attempts will be rejected."),
            signOut: answer["should_logout_user"] == .bool(true))
    }

    /// A password check of an account that does not exist: no hook is called (GoTrue's hook is
    /// about a user), but the check takes as long as a hook call has been taking, so a slow hook
    /// does not tell known addresses from unknown ones by the time a wrong password takes.
    public func passwordAttemptOfUnknownAccount() async {
        guard isEnabled(.passwordVerificationAttempt), let typical = timings.typical(.passwordVerificationAttempt) else { return }
        await pause(typical)
    }

    /// `mfa-verification`: every second-factor code check, right or wrong; a rejection ends the
    /// user's sessions, as GoTrue's does.
    public func mfaAttempt(userID: UUID, factorID: UUID, factorType: String, valid: Bool) async throws -> Verdict {
        guard isEnabled(.mfaVerificationAttempt) else { return .proceed }
        let answer = try await invoke(
            .mfaVerificationAttempt,
            [
                "user_id": .string(userID.lowercasedString), "factor_id": .string(factorID.lowercasedString),
                "factor_type": .string(factorType), "valid": .bool(valid),
            ],
            userID: userID)
        guard answer["decision"] == "reject" else { return .proceed }
        return .reject(message: Self.message(answer, otherwise: "Further MFA verification attempts will be rejected."), signOut: true)
    }

    /// Ends every session of `userID`, for a hook's rejection that asks for it.
    public func signOut(userID: UUID) async throws {
        try await store?.deleteSessions(userID: userID, except: nil, audit: [])
    }

    // MARK: Calling

    /// Calls hook `name` with `fields` and the metadata, records the call, and answers what the
    /// hook answered; throws the hook's refusal or the caller's error.
    func invoke(_ name: HookName, _ fields: [String: JSONValue], userID: UUID?) async throws -> [String: JSONValue] {
        var payload = fields
        payload["metadata"] = .object([
            "uuid": .string(random.uuid().lowercasedString), "time": .string(WireJSON.formatDate(time.now())),
            "name": .string(name.rawValue), "ip_address": .string(AuditContext.current.ip ?? ""),
        ])
        let start = ContinuousClock.now
        let answer: [String: JSONValue]
        do {
            answer = try await caller.call(name, payload: payload)
            timings.record(name, ContinuousClock.now - start)
        } catch {
            let failure = error as? AuthError ?? AuthError(.unexpectedFailure, "Error running hook \(name.rawValue)")
            try? await record(name, outcome: "failed", code: failure.code, userID: userID, since: start)
            throw failure
        }
        if let refusal = Self.refusal(in: answer) {
            try await record(name, outcome: "rejected", code: refusal.code, userID: userID, since: start)
            throw refusal
        }
        try await record(name, outcome: "ok", code: nil, userID: userID, since: start)
        return answer
    }

    private func record(_ name: HookName, outcome: String, code: ErrorCode?, userID: UUID?, since start: ContinuousClock.Instant)
        async throws
    {
        guard let store else { return }
        let milliseconds = (ContinuousClock.now - start).milliseconds
        var details: [String: JSONValue] = [
            "hook": .string(name.rawValue), "outcome": .string(outcome), "duration_ms": .number((milliseconds * 10).rounded() / 10),
        ]
        if let code { details["error_code"] = .string(code.rawValue) }
        let events = AuditEvents(time: time, random: random)
        try await store.appendAudit([events.event(.hookCalled, userID: userID, name: "hook:\(name.rawValue)", details: details)])
    }

    /// The refusal an answer carries (`{"error": {"http_code", "message"}}` with a message), as
    /// GoTrue reads it: the hook's status when it is an error status, else 500.
    public static func refusal(in answer: [String: JSONValue]) -> AuthError? {
        guard let error = answer["error"]?.objectValue, let message = error["message"]?.stringValue, !message.isEmpty else {
            return nil
        }
        var refusal = AuthError(.hookRejected, String(message.prefix(1000)))
        let status = error["http_code"]?.numberValue.flatMap { $0.isFinite ? Int(exactly: $0.rounded()) : nil } ?? 0
        refusal.status = (400...599).contains(status) ? status : 500
        return refusal
    }

    static func message(_ answer: [String: JSONValue], otherwise fallback: String) -> String {
        guard let message = answer["message"]?.stringValue, !message.isEmpty else { return fallback }
        return String(message.prefix(1000))
    }

    /// A wire value as JSON, for a payload.
    static func json(_ value: some Encodable) -> JSONValue {
        guard let data = try? WireJSON.makeEncoder().encode(value), let json = try? JSONDecoder().decode(JSONValue.self, from: data)
        else { return .null }
        return json
    }
}

/// What ``Hooks`` writes: the audit event of each call, and the end of sessions a rejection or a
/// failed token asks for.
public protocol HookStore: AuditWriting {
    func deleteSessions(userID: UUID, except keeping: UUID?, audit: [AuditEvent]) async throws
    func deleteSession(id: UUID, audit: [AuditEvent]) async throws
}

extension InMemoryStore: HookStore {}
