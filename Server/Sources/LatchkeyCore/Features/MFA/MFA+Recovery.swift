import Foundation
import LatchkeyAPI

extension MFA {
    /// Codes in a set, and the letters they are written in: no `i`, `l`, `o`, `0` or `1`, which
    /// read alike; 10 of 31 letters, about 50 bits each.
    static let recoveryCodeCount = 10
    static let recoveryAlphabet = Array("abcdefghjkmnpqrstuvwxyz23456789")

    /// `POST /recovery-codes` (Latchkey's): ten new single-use codes for when the second factor
    /// is lost, shown this once and stored hashed. They replace the user's earlier set. Needs a
    /// verified factor and an `aal2` session.
    public func generateRecoveryCodes(principal: Principal) async throws -> RecoveryCodes {
        try principal.user.refuseIfAnonymous()
        let user = principal.user
        guard try await store.factors(userID: user.id).contains(where: { $0.status == .verified }) else {
            throw AuthError(.mfaFactorNotFound, "Verify a second factor before making recovery codes")
        }
        guard principal.session?.aal == "aal2" else { throw AuthError(.insufficientAAL, "AAL2 required to make recovery codes") }
        let set = newRecoveryCodes(for: user, at: time.now())
        try await store.replaceRecoveryCodes(userID: user.id, with: set.records, audit: [set.event])
        return RecoveryCodes(codes: set.codes)
    }

    /// A new set of codes for `user`: the codes to show, their stored form, and the event.
    func newRecoveryCodes(for user: UserRecord, at now: Date) -> (codes: [String], records: [RecoveryCodeRecord], event: AuditEvent) {
        let codes = (0..<Self.recoveryCodeCount).map { _ in recoveryCode() }
        let records = codes.map {
            RecoveryCodeRecord(
                id: random.uuid(), userID: user.id, codeHash: OneTimeSecrets.codeHash(Self.normalized($0) ?? $0, userID: user.id),
                createdAt: now)
        }
        let event = events.event(.factorEnrolled, user: user, details: ["type": "recovery_codes", "count": .number(Double(codes.count))])
        return (codes, records, event)
    }

    /// `GET /recovery-codes`: how many of the user's codes are left.
    public func recoveryCodeStatus(principal: Principal) async throws -> RecoveryCodeStatus {
        guard let session = principal.session else { throw AuthError.sessionNotFound }
        let codes = try await store.recoveryCodeState(userID: principal.user.id, sessionID: session.id).codes
        return RecoveryCodeStatus(remaining: codes.filter { $0.usedAt == nil }.count, total: codes.count)
    }

    /// `POST /recovery-codes/verify`: a recovery code in place of the second factor. The right
    /// one is spent and raises the session to `aal2` (`amr` `mfa/recovery`), moving its refresh
    /// counter on by two as a factor's code does, and the owner is emailed. Spending and raising
    /// happen only while the code is unspent and the session as read, so of two uses of one code
    /// one succeeds. Wrong codes count toward the account's lock-out as wrong TOTP codes do.
    public func verifyRecoveryCode(_ request: VerifyRecoveryCodeRequest, principal: Principal, client: ClientInfo) async throws
        -> Session
    {
        try principal.user.refuseIfAnonymous()
        try await limiter.hit("ip:mfa:\(client.limitKey)", settings.perIP)
        guard let raw = request.code, !raw.isEmpty, raw.unicodeScalars.count <= 64 else {
            throw AuthError.validation("code must be one of the recovery codes")
        }
        guard let current = principal.session else { throw AuthError.sessionNotFound }
        let user = principal.user
        let failureKey = Self.signInFailureKey(user)
        if let failureKey { try await limiter.check(failureKey, settings.accountFailures) }
        let typed = Self.normalized(raw)
        for _ in 0..<Self.maxRaces {
            let state = try await store.recoveryCodeState(userID: user.id, sessionID: current.id)
            guard let session = state.session else { throw AuthError.sessionNotFound }
            let unspent = state.codes.filter { $0.usedAt == nil }
            // Every unspent code is compared (in constant time each), so the time says nothing of which.
            let matches = unspent.filter { code in
                typed.map { OneTimeSecrets.codeMatches($0, userID: user.id, storedHash: code.codeHash) } ?? false
            }
            guard let match = matches.first else {
                var audit = [events.event(.codeFailed, user: user, details: ["kind": "recovery_code"], client: client)]
                if let failureKey, try await limiter.record(failureKey, settings.accountFailures) == settings.accountFailures.count {
                    audit.append(events.event(.lockout, user: user, details: ["kind": "account", "via": "recovery_code"], client: client))
                }
                try await store.appendAudit(audit)
                throw AuthError(.mfaVerificationFailed, "Invalid recovery code")
            }
            let now = time.now()
            var raised = session
            raised.aal = "aal2"
            raised.amr.removeAll { $0.method == Self.recoveryMethod }
            raised.amr.append(AuthenticationMethod(method: Self.recoveryMethod, timestamp: Int(now.timeIntervalSince1970)))
            raised.refreshCounter += 2
            raised.refreshedAt = now
            raised.updatedAt = now
            let remaining = unspent.count - 1
            let spend = RecoveryCodeSpend(
                codeID: match.id, userID: user.id, usedAt: now, seenSession: session, session: raised,
                audit: [
                    events.event(
                        .mfaVerified, user: user, details: ["type": "recovery_code", "remaining": .number(Double(remaining))],
                        client: client)
                ],
                outbox: try notices.notice(.recoveryCodeUsed, to: user))
            guard try await store.spendRecoveryCode(spend) else { continue }
            notices.notify()
            return try await answers.answer(user: user, session: raised)
        }
        throw AuthError.requestRateLimit
    }

    /// The `amr` method a recovery code adds (GoTrue's `recovery` names a password-reset link).
    static let recoveryMethod = "mfa/recovery"

    /// A new code, `xxxxx-xxxxx`, its letters drawn uniformly (bytes past the last whole multiple
    /// of the alphabet are drawn again).
    func recoveryCode() -> String {
        var letters: [Character] = []
        let limit = UInt8(256 - 256 % Self.recoveryAlphabet.count)
        while letters.count < 10 {
            for byte in random.bytes(16) where byte < limit && letters.count < 10 {
                letters.append(Self.recoveryAlphabet[Int(byte) % Self.recoveryAlphabet.count])
            }
        }
        return String(letters[0..<5]) + "-" + String(letters[5..<10])
    }

    /// A code as typed or pasted, with white space and dashes of any kind (a PDF's `‐`, a tab)
    /// dropped and in lower case; `nil` when it is not ten of the alphabet's letters.
    static func normalized(_ raw: String) -> String? {
        let letters = raw.lowercased().filter { character in
            !character.isWhitespace && !character.unicodeScalars.allSatisfy { $0.properties.generalCategory == .dashPunctuation }
        }
        guard letters.count == 10, letters.allSatisfy(recoveryAlphabet.contains) else { return nil }
        return letters
    }
}
