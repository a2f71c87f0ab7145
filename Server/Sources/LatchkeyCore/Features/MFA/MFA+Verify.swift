import Foundation
import LatchkeyAPI

extension MFA {
    /// What a verification decided, before it is written.
    enum Decision {
        /// The right code: write it, then answer with the raised session (and, for the user's
        /// first factor, the recovery codes the write stores).
        case accept(FactorWrite, recoveryCodes: [String])
        /// A wrong code: write its count (perhaps a lock), then answer with the error.
        case refuse(FactorWrite, AuthError)
        /// Answer with the error; spend the challenge first when `spendChallenge` (it expired).
        case reject(AuthError, spendChallenge: Bool)
    }

    /// `POST /factors/{id}/verify`: a code for an open challenge. The right code (for TOTP ±1
    /// time step, each step's code once; for a phone factor the code sent for this challenge,
    /// the factor's newest) verifies the factor and raises the session to `aal2`, moving its
    /// refresh counter on by two so that no earlier refresh token mints an `aal2` session. The
    /// first verification of a factor also ends the user's other `aal1` sessions (GoTrue does
    /// the same): a session opened with a stolen password does not outlive the second factor.
    /// Wrong codes count; the `maxAttempts`-th in a row locks the factor for a while. They also
    /// count toward the account's lock-out that wrong passwords count toward, and a locked
    /// account verifies no code.
    ///
    /// The factor, challenge and session are read, the code decided on, and the outcome written
    /// only while all three are still as read; a verification that loses that race (another
    /// code for the factor, a refresh of the session) reads again and decides again, so racing
    /// wrong codes are each counted and a code is accepted once.
    public func verify(id raw: String, _ request: VerifyFactorRequest, principal: Principal, client: ClientInfo) async throws
        -> Session
    {
        try principal.user.refuseIfAnonymous()
        try await limiter.hit("ip:mfa:\(client.limitKey)", settings.perIP)
        guard let factorID = UUID(text: raw) else { throw Self.notFound }
        guard let rawChallenge = request.challengeID, let challengeID = UUID(text: rawChallenge) else {
            throw AuthError.validation("challenge_id must be the id of a challenge")
        }
        let proof = try Self.proof(of: request)
        guard let current = principal.session else { throw AuthError.sessionNotFound }
        let user = principal.user
        let failureKey = Self.signInFailureKey(user)
        if let failureKey { try await limiter.check(failureKey, settings.accountFailures) }
        // The user's first factor comes with recovery codes, unless some are left from before: asked
        // only when the factor is not verified yet, so a sign-in's step-up reads nothing more.
        var issuing: Bool?
        for _ in 0..<Self.maxRaces {
            let state = try await store.factorVerification(
                factorID: factorID, userID: user.id, challengeID: challengeID, sessionID: current.id)
            if issuing == nil, state.factor?.status == .unverified { issuing = try await owesRecoveryCodes(user, sessionID: current.id) }
            let decision = decide(
                proof, challengeID: challengeID, state, user: user, client: client, now: time.now(),
                issuingRecoveryCodes: issuing ?? false)
            try await askHook(about: decision, factor: state.factor, user: user)
            switch decision {
            case .reject(let error, let spend):
                if spend { try await store.spendChallenge(id: challengeID, factorID: factorID) }
                throw error
            case .accept(let write, let codes):
                let recorded: Bool
                do {
                    recorded = try await store.recordFactorVerification(write)
                } catch let error as StoreError where error.isDuplicate {
                    // Another factor for this number was verified first: one verified factor per number;
                    // a WebAuthn key is one factor's.
                    if write.factor.factorType == "webauthn" {
                        throw AuthError(.webauthnCredentialExists, "This credential is already registered")
                    }
                    throw Self.verifiedPhoneExists
                }
                guard recorded, let acceptance = write.acceptance else { continue }
                if !acceptance.outbox.isEmpty { notices.notify() }
                var answer = try await answers.answer(user: user, session: acceptance.session)
                if !codes.isEmpty { answer.recoveryCodes = codes }
                return answer
            case .refuse(let write, let error):
                guard try await store.recordFactorVerification(write) else { continue }
                // The account-wide count that wrong passwords feed too (checklist D3).
                if let failureKey, try await limiter.record(failureKey, settings.accountFailures) == settings.accountFailures.count {
                    try await store.appendAudit([
                        events.event(
                            .lockout, user: user, details: ["kind": "account", "via": .string(state.factor?.factorType ?? "totp")],
                            client: client)
                    ])
                }
                throw error
            }
        }
        throw AuthError.requestRateLimit
    }

    /// The operator's `mfa-verification` hook, for a code that was checked (right or wrong): its
    /// rejection ends the user's sessions and refuses the verification before anything is written.
    func askHook(about decision: Decision, factor: FactorRecord?, user: UserRecord) async throws {
        guard answers.hooks.isEnabled(.mfaVerificationAttempt), let factor else { return }
        let valid: Bool
        switch decision {
        case .accept: valid = true
        case .refuse: valid = false
        case .reject: return
        }
        let verdict = try await answers.hooks.mfaAttempt(userID: user.id, factorID: factor.id, factorType: factor.factorType, valid: valid)
        guard case .reject(let message, _) = verdict else { return }
        try await answers.hooks.signOut(userID: user.id)
        var error = AuthError(.mfaVerificationRejected, message)
        error.status = 403
        throw error
    }

    /// What a verification presents: a code, or a WebAuthn factor's credential.
    enum Proof {
        case code(String)
        case webAuthn(WebAuthnFactorResponse)
    }

    /// The request's proof, checked for shape: GoTrue's 400s for a missing one.
    static func proof(of request: VerifyFactorRequest) throws -> Proof {
        if let answer = request.webauthn {
            guard answer.type == "create" || answer.type == "request" else {
                throw AuthError.validation("WebAuthn type must be create or request")
            }
            guard answer.credentialResponse != nil else { throw AuthError.validation("webauthn.credential_response is required") }
            return .webAuthn(answer)
        }
        guard let code = request.code, !code.isEmpty, code.unicodeScalars.count <= 16 else {
            throw AuthError.validation("code must be the code from the authenticator app or the message")
        }
        return .code(code)
    }

    /// The verification rules, as a function of what was read.
    func decide(
        _ proof: Proof, challengeID: UUID, _ state: FactorVerificationState, user: UserRecord, client: ClientInfo, now: Date,
        issuingRecoveryCodes: Bool = false
    ) -> Decision {
        guard let factor = state.factor else { return .reject(Self.notFound, spendChallenge: false) }
        if let disabled = verificationRefusal(of: factor) { return .reject(disabled, spendChallenge: false) }
        guard let session = state.session else { return .reject(.sessionNotFound, spendChallenge: false) }
        guard let challenge = state.challenge else {
            return .reject(AuthError(.mfaChallengeExpired, "MFA challenge not found or already used"), spendChallenge: false)
        }
        if challenge.expiresAt <= now {
            return .reject(
                AuthError(
                    .mfaChallengeExpired,
                    "MFA challenge \(challenge.id.lowercasedString) has expired, verify against another challenge or create a new challenge."
                ),
                spendChallenge: true)
        }
        if challenge.ip != client.ip {
            return .reject(AuthError(.mfaIPAddressMismatch, "Challenge and verify IP addresses mismatch"), spendChallenge: false)
        }
        if let locked = factor.lockedUntil, locked > now { return .reject(Self.locked(until: locked, now: now), spendChallenge: false) }
        var updated = factor
        updated.updatedAt = now
        let factorID: JSONValue = .string(factor.id.lowercasedString)
        let kind: JSONValue = .string(factor.factorType)
        switch check(proof, factor: factor, challenge: challenge, userID: user.id, now: now) {
        case .unreadable:
            return .reject(AuthError(.unexpectedFailure, "The factor's secret cannot be read"), spendChallenge: false)
        case .malformed(let error):
            return .reject(error, spendChallenge: false)
        case .right(let step, let key):
            updated.lastUsedStep = step ?? factor.lastUsedStep
            if let key { updated.webAuthn = key }
            updated.failedAttempts = 0
            updated.lockedUntil = nil
            updated.status = .verified
            var raised = session
            raised.aal = "aal2"
            // One entry per method, as GoTrue keeps them: a later verification moves its time on.
            raised.amr.removeAll { $0.method == factor.amrMethod }
            raised.amr.append(AuthenticationMethod(method: factor.amrMethod, timestamp: Int(now.timeIntervalSince1970)))
            raised.refreshCounter += 2
            raised.refreshedAt = now
            raised.updatedAt = now
            var audit = [events.event(.mfaVerified, user: user, details: ["factor_id": factorID, "type": kind], client: client)]
            var mail: [OutboxRecord] = []
            if factor.status == .unverified {
                audit.insert(events.event(.factorVerified, user: user, details: ["factor_id": factorID], client: client), at: 0)
                // The factor counts from now on: tell the owner, in case it was not them.
                mail = (try? notices.notice(.factorEnrolled, to: user)) ?? []
            }
            var acceptance = FactorAcceptance(
                challengeID: challengeID, seenSession: session, session: raised, outbox: mail,
                endingOtherAAL1Sessions: factor.status == .unverified)
            var codes: [String] = []
            if issuingRecoveryCodes, factor.status == .unverified {
                let set = newRecoveryCodes(for: user, at: now)
                (codes, acceptance.recoveryCodes) = (set.codes, set.records)
                audit.append(set.event)
            }
            return .accept(FactorWrite(seen: factor, factor: updated, audit: audit, acceptance: acceptance), recoveryCodes: codes)
        case .wrong:
            break
        }
        updated.failedAttempts += 1
        let remaining = max(0, settings.factors.maxAttempts - updated.failedAttempts)
        var details: [String: JSONValue] = ["kind": kind, "factor_id": factorID]
        details["attempts_remaining"] = AttemptCap.told(remaining).map { .number(Double($0)) }
        var audit = [events.event(.codeFailed, user: user, details: details, client: client)]
        var error = AuthError(.mfaVerificationFailed, Self.wrongAnswer[factor.factorType] ?? "Invalid TOTP code entered")
        error.attemptsRemaining = AttemptCap.told(remaining)
        if remaining == 0 {
            let until = now.addingTimeInterval(Double(settings.factors.lockout))
            updated.lockedUntil = until
            updated.failedAttempts = 0
            audit.append(events.event(.lockout, user: user, details: ["kind": kind, "factor_id": factorID], client: client))
            error = Self.locked(until: until, now: now)
        }
        return .refuse(FactorWrite(seen: factor, factor: updated, audit: audit), error)
    }

    static let wrongAnswer = ["phone": "Invalid MFA Phone code entered", "webauthn": "WebAuthn verification failed"]

    /// How a code compares with what a factor and its challenge expect.
    enum CodeCheck {
        /// The right code; for TOTP, the time step it belongs to; for WebAuthn, the key's counter
        /// and, on the first verification, the key registered.
        case right(step: Int64?, key: WebAuthnFactorCredential? = nil)
        case wrong
        /// The factor's secret does not open (a server secret changed under it).
        case unreadable
        /// Not an answer this factor takes (`400`, not counted).
        case malformed(AuthError)
    }

    /// A phone factor's code is the one sent for this challenge (its hash, compared in constant
    /// time); a TOTP code is the secret's for the time step, ±1, not used before; a WebAuthn
    /// factor's credential answers ``checkWebAuthn(_:factor:challenge:userID:)``.
    func check(_ proof: Proof, factor: FactorRecord, challenge: FactorChallengeRecord, userID: UUID, now: Date) -> CodeCheck {
        let code: String
        switch (proof, factor.factorType == "webauthn") {
        case (.webAuthn(let answer), true): return checkWebAuthn(answer, factor: factor, challenge: challenge, userID: userID)
        case (.code, true): return .malformed(.validation("webauthn is required to verify a WebAuthn factor"))
        case (.webAuthn, false): return .malformed(.validation("code is required to verify a \(factor.factorType) factor"))
        case (.code(let given), false): code = given
        }
        if factor.factorType == "phone" {
            guard let hash = challenge.codeHash else { return .wrong }
            return OneTimeSecrets.codeMatches(code, userID: userID, storedHash: hash) ? .right(step: nil) : .wrong
        }
        guard let secret = try? box.open(factor.sealedSecret, context: factor.id.lowercasedString) else { return .unreadable }
        guard let step = TOTP(secret: secret).matchingStep(code, at: now), step > (factor.lastUsedStep ?? .min) else { return .wrong }
        return .right(step: step)
    }

    /// Whether a verification now is of the user's first factor and they hold no unspent
    /// recovery code: the verification then stores a set and answers it, once.
    func owesRecoveryCodes(_ user: UserRecord, sessionID: UUID) async throws -> Bool {
        guard try await !store.factors(userID: user.id).contains(where: { $0.status == .verified }) else { return false }
        return try await store.recoveryCodeState(userID: user.id, sessionID: sessionID).codes.allSatisfy { $0.usedAt != nil }
    }

    /// The key of the per-account failure count that password sign-ins use.
    static func signInFailureKey(_ user: UserRecord) -> String? {
        if let email = user.email { return "signin:fail:\(email)" }
        return user.phone.map { "signin:fail:phone:\($0)" }
    }
}
