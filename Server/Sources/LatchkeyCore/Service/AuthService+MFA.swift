import Foundation
import LatchkeyAPI

extension AuthService {
    /// `POST /factors`: a new, unverified TOTP factor with a 160-bit secret, its `otpauth://`
    /// URI and an SVG QR code of it. A user who already has a verified factor needs an `aal2`
    /// session to add another.
    public func enrollFactor(_ request: EnrollFactorRequest, principal: Principal) async throws -> TOTPEnrollment {
        try refuseAnonymous(principal.user)
        guard configuration.mfa.totpEnrollEnabled else {
            throw AuthError(.mfaTOTPEnrollNotEnabled, "MFA enroll is disabled for TOTP")
        }
        guard let type = request.factorType, type == "totp" else {
            throw AuthError.validation("factor_type must be totp (phone and webauthn factors are not served)")
        }
        let name = request.friendlyName.map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
        if let name, name.unicodeScalars.count > 100 { throw AuthError.validation("friendly_name must be at most 100 characters") }
        let issuer = try factorIssuer(request.issuer)
        let user = principal.user
        let factors = try await store.factors(userID: user.id)
        if factors.contains(where: { $0.status == .verified }), principal.session?.aal != "aal2" {
            throw AuthError(.insufficientAAL, "AAL2 required to enroll a new factor")
        }
        let now = time.now()
        let totp = TOTP(secret: random.bytes(20))
        let id = random.uuid()
        let account = user.email ?? user.phone.map { "+" + $0 } ?? user.id.uuidString.lowercased()
        let uri = totp.uri(issuer: issuer, account: account)
        let factor = FactorRecord(
            id: id, userID: user.id, friendlyName: name,
            sealedSecret: try factorBox.seal(totp.secret, context: id.uuidString.lowercased()), createdAt: now, updatedAt: now)
        let event = auditEvent(.factorEnrolled, user: user, details: ["factor_id": .string(id.uuidString.lowercased()), "type": "totp"])
        do {
            guard try await store.createFactor(factor, limit: configuration.mfa.maxEnrolledFactors, audit: [event]) else {
                throw AuthError(
                    .tooManyEnrolledMFAFactors, "Maximum number of enrolled factors reached, unenroll to continue")
            }
        } catch let error as StoreError where error.isDuplicate {
            throw AuthError(.mfaFactorNameConflict, "A factor with the friendly name \"\(name ?? "")\" for this user already exists")
        }
        return TOTPEnrollment(
            id: id, type: "totp", friendlyName: name,
            totp: .init(qrCode: try QRCode(encoding: uri).svg(), secret: Base32.encode(totp.secret), uri: uri))
    }

    /// `POST /factors/{id}/challenge`: a challenge to verify a code against, from this address,
    /// before it expires.
    public func challengeFactor(id raw: String, principal: Principal, client: ClientInfo) async throws -> FactorChallenge {
        try refuseAnonymous(principal.user)
        try await limiter.hit("ip:mfa:\(client.ip)", configuration.rateLimits.mfaPerIP)
        try requireTOTPVerification()
        let factor = try await ownFactor(raw, of: principal.user)
        let now = time.now()
        if let locked = factor.lockedUntil, locked > now { throw Self.factorLocked(until: locked, now: now) }
        let challenge = FactorChallengeRecord(
            id: random.uuid(), factorID: factor.id, ip: client.ip, createdAt: now,
            expiresAt: now.addingTimeInterval(Double(configuration.mfa.challengeExpiry)))
        try await store.createChallenge(challenge)
        return FactorChallenge(id: challenge.id, type: factor.factorType, expiresAt: Int(challenge.expiresAt.timeIntervalSince1970))
    }

    /// `POST /factors/{id}/verify`: a code for an open challenge. The right code (±1 time step,
    /// each step's code once) verifies the factor and raises the session to `aal2`, moving its
    /// refresh counter on by two so that no earlier refresh token mints an `aal2` session. The
    /// first verification of a factor also ends the user's other `aal1` sessions (GoTrue does
    /// the same): a session opened with a stolen password does not outlive the second factor.
    /// Wrong codes count; the `maxAttempts`-th in a row locks the factor for a while. They also
    /// count toward the account's lock-out that wrong passwords count toward, and a locked
    /// account verifies no code.
    public func verifyFactor(
        id raw: String, _ request: VerifyFactorRequest, principal: Principal, client: ClientInfo
    ) async throws -> Session {
        try refuseAnonymous(principal.user)
        try await limiter.hit("ip:mfa:\(client.ip)", configuration.rateLimits.mfaPerIP)
        try requireTOTPVerification()
        guard let factorID = UUID(uuidString: raw) else { throw Self.factorNotFound }
        guard let rawChallenge = request.challengeID, let challengeID = UUID(uuidString: rawChallenge) else {
            throw AuthError.validation("challenge_id must be the id of a challenge")
        }
        guard let code = request.code, !code.isEmpty, code.unicodeScalars.count <= 16 else {
            throw AuthError.validation("code must be the 6-digit code from the authenticator app")
        }
        guard let current = principal.session else { throw AuthError.sessionNotFound }
        let user = principal.user
        let failureKey = Self.signInFailureKey(user)
        let failureLimit = configuration.rateLimits.signInFailuresPerAccount
        if let failureKey { try await limiter.check(failureKey, failureLimit) }
        let now = time.now()
        let decision = try await store.verifyFactor(id: factorID, userID: user.id, challengeID: challengeID, sessionID: current.id) {
            factor, challenge, session in
            decideVerification(code: code, factor: factor, challenge: challenge, session: session, user: user, client: client, now: now)
        }
        switch decision {
        case .accept(_, let session, _, let mail, _):
            if !mail.isEmpty { outboxSignal.notify() }
            return try await sessionResponse(user: user, session: session)
        case .refuse(_, let error, _):
            // The account-wide count that wrong passwords feed too (checklist D3).
            if let failureKey, try await limiter.record(failureKey, failureLimit) == failureLimit.count {
                try await store.appendAudit([
                    auditEvent(.lockout, user: user, details: ["kind": "account", "via": "totp"], client: client)
                ])
            }
            throw error
        case .reject(let error, _): throw error
        }
    }

    /// The verification rules, inside the store's transaction.
    func decideVerification(
        code: String, factor: FactorRecord?, challenge: FactorChallengeRecord?, session: SessionRecord?, user: UserRecord,
        client: ClientInfo, now: Date
    ) -> FactorDecision {
        guard let factor else { return .reject(Self.factorNotFound, spendChallenge: false) }
        guard let session else { return .reject(.sessionNotFound, spendChallenge: false) }
        guard let challenge else {
            return .reject(AuthError(.mfaChallengeExpired, "MFA challenge not found or already used"), spendChallenge: false)
        }
        if challenge.expiresAt <= now {
            return .reject(
                AuthError(
                    .mfaChallengeExpired,
                    "MFA challenge \(challenge.id.uuidString.lowercased()) has expired, verify against another challenge or create a new challenge."
                ),
                spendChallenge: true)
        }
        if challenge.ip != client.ip {
            return .reject(AuthError(.mfaIPAddressMismatch, "Challenge and verify IP addresses mismatch"), spendChallenge: false)
        }
        if let locked = factor.lockedUntil, locked > now {
            return .reject(Self.factorLocked(until: locked, now: now), spendChallenge: false)
        }
        guard let secret = try? factorBox.open(factor.sealedSecret, context: factor.id.uuidString.lowercased()) else {
            return .reject(AuthError(.unexpectedFailure, "The factor's secret cannot be read"), spendChallenge: false)
        }
        var updated = factor
        updated.updatedAt = now
        let factorID: JSONValue = .string(factor.id.uuidString.lowercased())
        if let step = TOTP(secret: secret).matchingStep(code, at: now), step > (factor.lastUsedStep ?? .min) {
            updated.lastUsedStep = step
            updated.failedAttempts = 0
            updated.lockedUntil = nil
            updated.status = .verified
            var next = session
            next.aal = "aal2"
            // One entry per method, as GoTrue keeps them: a later verification moves its time on.
            next.amr.removeAll { $0.method == "totp" }
            next.amr.append(AuthenticationMethod(method: "totp", timestamp: Int(now.timeIntervalSince1970)))
            next.refreshCounter += 2
            next.refreshedAt = now
            next.updatedAt = now
            var audit = [auditEvent(.mfaVerified, user: user, details: ["factor_id": factorID], client: client)]
            var mail: [OutboxRecord] = []
            if factor.status == .unverified {
                audit.insert(auditEvent(.factorVerified, user: user, details: ["factor_id": factorID], client: client), at: 0)
                // The factor counts from now on: tell the owner, in case it was not them.
                mail = (try? notice(.factorEnrolled, to: user)) ?? []
            }
            return .accept(updated, next, audit: audit, outbox: mail, endingOtherAAL1Sessions: factor.status == .unverified)
        }
        updated.failedAttempts += 1
        let remaining = max(0, configuration.mfa.maxAttempts - updated.failedAttempts)
        var audit = [
            auditEvent(
                .codeFailed, user: user,
                details: ["kind": "totp", "factor_id": factorID, "attempts_remaining": .number(Double(remaining))],
                client: client)
        ]
        var error = AuthError(.mfaVerificationFailed, "Invalid TOTP code entered")
        error.attemptsRemaining = remaining
        if remaining == 0 {
            let until = now.addingTimeInterval(Double(configuration.mfa.lockout))
            updated.lockedUntil = until
            updated.failedAttempts = 0
            audit.append(auditEvent(.lockout, user: user, details: ["kind": "totp", "factor_id": factorID], client: client))
            error = Self.factorLocked(until: until, now: now)
        }
        return .refuse(updated, error, audit: audit)
    }

    /// `DELETE /factors/{id}`: removing a verified factor needs an `aal2` session.
    public func unenrollFactor(id raw: String, principal: Principal) async throws -> UnenrolledFactor {
        try refuseAnonymous(principal.user)
        let factor = try await ownFactor(raw, of: principal.user)
        if factor.status == .verified, principal.session?.aal != "aal2", !principal.isAdmin {
            throw AuthError(.insufficientAAL, "AAL2 required to unenroll verified factor")
        }
        try await deleteFactor(factor, of: principal.user)
        return UnenrolledFactor(id: factor.id)
    }

    /// `GET /admin/users/{id}/factors`.
    public func adminFactors(userID raw: String) async throws -> [Factor] {
        let user = try await existingUser(raw)
        return try await store.factors(userID: user.id).map(\.wire)
    }

    /// `DELETE /admin/users/{id}/factors/{fid}`: an operator removes a factor (a user who lost
    /// their authenticator).
    public func adminDeleteFactor(userID raw: String, factorID rawFactor: String) async throws -> Factor {
        let user = try await existingUser(raw)
        let factor = try await ownFactor(rawFactor, of: user)
        try await deleteFactor(factor, of: user)
        return factor.wire
    }

    /// Whether changing the password, email or phone needs an `aal2` session first: the user has
    /// a verified factor. Recovery links sign in at `aal1`, so a reset needs the second factor too.
    func requireAAL2ForCredentialChange(_ principal: Principal) async throws {
        try await requireAAL2(principal, to: "update email or password")
    }

    /// `insufficient_aal` unless the session is `aal2` or the user has no verified factor: what a
    /// stolen password alone must not reach (credentials, device keys, vaults, signer keys).
    func requireAAL2(_ principal: Principal, to action: String) async throws {
        try await SecondFactorGate(factors: store).require(principal, to: action)
    }

    /// Deletes the factor. Removing a verified one also brings every `aal2` session of the user
    /// back to `aal1` (GoTrue's `DowngradeSessionsToAAL1`): sessions do not record which factor
    /// raised them, so none keeps a level the removed factor may have given it.
    func deleteFactor(_ factor: FactorRecord, of user: UserRecord) async throws {
        let event = auditEvent(.factorUnenrolled, user: user, details: ["factor_id": .string(factor.id.uuidString.lowercased())])
        let mail = factor.status == .verified ? try notice(.factorUnenrolled, to: user) : []
        guard
            try await store.deleteFactor(
                id: factor.id, userID: user.id, downgradingSessions: factor.status == .verified, audit: [event], outbox: mail) != nil
        else {
            throw Self.factorNotFound
        }
        if !mail.isEmpty { outboxSignal.notify() }
    }

    /// A notice of `kind` to the user's email address, when it has one.
    func notice(_ kind: MessageKind, to user: UserRecord) throws -> [OutboxRecord] {
        try user.email.map { try outbox(composer.email(kind, to: $0, user: user)) } ?? []
    }

    func ownFactor(_ raw: String, of user: UserRecord) async throws -> FactorRecord {
        guard let id = UUID(uuidString: raw), let factor = try await store.factors(userID: user.id).first(where: { $0.id == id }) else {
            throw Self.factorNotFound
        }
        return factor
    }

    func requireTOTPVerification() throws {
        guard configuration.mfa.totpVerifyEnabled else {
            throw AuthError(.mfaTOTPVerifyNotEnabled, "MFA verification is disabled for TOTP")
        }
    }

    /// The issuer shown in authenticator apps: the request's, else the site's host.
    func factorIssuer(_ raw: String?) throws -> String {
        if let raw, !raw.isEmpty {
            guard raw.unicodeScalars.count <= 100, !raw.contains(":") else {
                throw AuthError.validation("issuer must be at most 100 characters, without a colon")
            }
            return raw
        }
        return URL(string: configuration.siteURL)?.host ?? configuration.appName
    }

    static let factorNotFound = AuthError(.mfaFactorNotFound, "Factor not found")

    /// The key of the per-account failure count that password sign-ins use.
    static func signInFailureKey(_ user: UserRecord) -> String? {
        if let email = user.email { return "signin:fail:\(email)" }
        return user.phone.map { "signin:fail:phone:\($0)" }
    }

    static func factorLocked(until: Date, now: Date) -> AuthError {
        let seconds = max(1, Int(until.timeIntervalSince(now).rounded(.up)))
        return AuthError(
            .overRequestRateLimit, "Too many wrong codes: this factor is locked for \(seconds) seconds", retryAfter: seconds)
    }
}
