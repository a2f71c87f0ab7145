import Foundation
import LatchkeyAPI

extension AuthService {
    /// What verifying a code or link gives: a session, or (the first of two email-change
    /// confirmations) GoTrue's half-way message.
    public enum VerifyOutcome: Sendable {
        case session(Session, redirectTo: String)
        case pending(String, redirectTo: String)
    }

    static let emailChangeHalfway = "Confirmation link accepted. Please proceed to confirm link sent to the other email"

    /// Starts changing a signed-in user's address: a code and link to the new address and, with
    /// secure email change, to the current one too. The address changes only once every code
    /// asked for has been confirmed. Returns the user with `new_email` set.
    func requestEmailChange(_ user: UserRecord, to newEmail: String, redirectTo: String?, challenge: PKCEChallenge?) async throws
        -> UserRecord
    {
        if let other = try await store.user(email: newEmail), other.id != user.id { throw AuthError.emailExists }
        let now = time.now()
        try checkCooldown(lastSent: user.emailChangeSentAt, now: now)
        let resolved = redirects.resolve(redirectTo)
        var updated = user
        updated.newEmail = newEmail
        updated.emailChangeSentAt = now
        updated.updatedAt = now
        var tokens: [OneTimeTokenRecord] = []
        var messages: [EmailMessage] = []
        let toNew = makeCode(for: user, kind: .emailChangeNew, address: newEmail, redirectTo: resolved, challenge: challenge, now: now)
        try await countEmail(to: newEmail)
        tokens.append(toNew.record)
        messages.append(
            composer.email(
                .emailChange, to: newEmail, user: user, code: toNew.code, linkSecret: toNew.linkSecret, redirectTo: resolved,
                newEmail: newEmail, oldEmail: user.email))
        if configuration.secureEmailChange, let current = user.email, user.isEmailConfirmed {
            let toCurrent = makeCode(
                for: user, kind: .emailChangeCurrent, address: current, redirectTo: resolved, challenge: challenge, now: now)
            try await countEmail(to: current)
            tokens.append(toCurrent.record)
            messages.append(
                composer.email(
                    .emailChangeCurrent, to: current, user: user, code: toCurrent.code, linkSecret: toCurrent.linkSecret,
                    redirectTo: resolved, newEmail: newEmail, oldEmail: current))
        }
        updated.emailChangeConfirmationsNeeded = tokens.count
        try await store.replaceOneTimeTokens(
            tokens, user: updated, outbox: try outbox(messages), audit: codeSentEvents(tokens, user: updated))
        outboxSignal.notify()
        // The row moved on with this write; the caller may write the copy again.
        updated.version += 1
        return updated
    }

    /// Redeeming one email-change code: counts the confirmation and, when it was the last one
    /// needed, moves the user to the new address, signs them in and tells the old address.
    func emailChangeRedemption(user: UserRecord, token: OneTimeTokenRecord, client: ClientInfo, now: Date) throws -> TokenRedemption {
        if user.isBanned(at: now) { throw AuthError.userBanned }
        // A code from an earlier change request (to another address) no longer counts.
        guard let newEmail = user.newEmail, token.relatesTo == (token.kind == .emailChangeNew ? newEmail : user.email) else {
            throw AuthError.otpInvalid
        }
        var updated = user
        updated.updatedAt = now
        updated.emailChangeConfirmationsNeeded = max(0, user.emailChangeConfirmationsNeeded - 1)
        if updated.emailChangeConfirmationsNeeded > 0 {
            return TokenRedemption(user: updated, preserving: [token.kind == .emailChangeNew ? .emailChangeCurrent : .emailChangeNew])
        }
        let old = user.email
        updated.email = newEmail
        updated.newEmail = nil
        updated.emailChangeSentAt = nil
        updated.emailConfirmedAt = now
        updated.userMetadata["email_verified"] = true
        updated.addProvider("email")
        updated.lastSignInAt = now
        // A confirmed address makes an anonymous user permanent.
        updated.isAnonymous = false
        let notice = try old.map { try outbox(composer.email(.emailChanged, to: $0, user: updated, newEmail: newEmail, oldEmail: $0)) }
        return TokenRedemption(
            user: updated, session: newSession(for: updated, method: "email_change", client: client, now: now), identityEmail: newEmail,
            outbox: notice ?? [],
            audit: [
                auditEvent(.emailChanged, user: updated, details: ["from": old.map(JSONValue.string) ?? .null], client: client),
                loginEvent(updated, method: "email_change", client: client),
            ])
    }

    /// `POST /verify` with `type=email_change`, an address and a code: the address is either the
    /// current one or the new one, and the code the one sent there.
    func verifyEmailChange(email: String, token: String, client: ClientInfo) async throws -> RedemptionOutcome {
        var candidates: [(UUID, OneTimeTokenKind)] = []
        if let current = try await store.user(email: email), current.newEmail != nil {
            candidates.append((current.id, .emailChangeCurrent))
        }
        for pending in try await store.users(newEmail: email) { candidates.append((pending.id, .emailChangeNew)) }
        let now = time.now()
        var outcome = RedemptionOutcome.notFound
        var refused: RedemptionOutcome?
        // Several users may wait to move to one address; the code says which.
        for (userID, kind) in candidates {
            do {
                outcome = try await store.redeemOneTimeToken(
                    .newest(userID: userID, kinds: [kind]), now: now, maxAttempts: configuration.otp.maxAttempts,
                    matches: { record in OneTimeSecrets.codeMatches(token, userID: record.userID, storedHash: record.codeHash) },
                    failed: codeFailureAudit(client: client),
                    complete: { user, record in try emailChangeRedemption(user: user, token: record, client: client, now: now) })
            } catch let error as StoreError where error.isDuplicate {
                throw AuthError.emailExists
            }
            if case .redeemed = outcome { return outcome }
            if case .notFound = outcome { continue }
            refused = outcome
        }
        return refused ?? outcome
    }

    /// `GET /reauthenticate`: emails the signed-in user a code to send as `nonce` with a
    /// sensitive change.
    public func reauthenticate(principal: Principal, client: ClientInfo) async throws -> OTPResponse {
        try await hitSendLimits(client)
        let user = principal.user
        guard let email = user.email else {
            throw AuthError(.validationFailed, "Reauthentication requires the user to have an email address")
        }
        let now = time.now()
        try checkCooldown(lastSent: user.reauthenticationSentAt, now: now)
        try await countEmail(to: email)
        try await onFreshCopies(of: user) { user in
            try checkCooldown(lastSent: user.reauthenticationSentAt, now: now)
            let issued = makeCode(for: user, kind: .reauthentication, address: email, redirectTo: nil, challenge: nil, now: now)
            var updated = user
            updated.reauthenticationSentAt = now
            updated.updatedAt = now
            let mail = composer.email(.reauthentication, to: email, user: user, code: issued.code)
            try await store.replaceOneTimeTokens(
                [issued.record], user: updated, outbox: try outbox(mail), audit: codeSentEvents([issued.record], user: updated))
        }
        outboxSignal.notify()
        return codeInfo(sentTo: email)
    }

    /// With reauthentication required, a sensitive change from a session older than 24 hours (or
    /// from no session) needs a fresh `nonce`; it is spent here.
    func checkReauthentication(_ nonce: String?, principal: Principal) async throws {
        guard configuration.password.requireReauthentication, !principal.isAdmin else { return }
        if let session = principal.session, time.now().timeIntervalSince(session.createdAt) < 86400 { return }
        guard let nonce, !nonce.isEmpty else { throw AuthError.reauthenticationNeeded }
        try await consumeNonce(nonce, user: principal.user)
    }

    /// Spends a reauthentication `nonce`, or throws `reauthentication_not_valid`.
    func consumeNonce(_ nonce: String, user: UserRecord) async throws {
        guard nonce.utf8.count <= 16 else { throw AuthError.reauthenticationNotValid }
        let others = Set(OneTimeTokenKind.allCases).subtracting([.reauthentication])
        let outcome = try await store.redeemOneTimeToken(
            .newest(userID: user.id, kinds: [.reauthentication]), now: time.now(), maxAttempts: configuration.otp.maxAttempts,
            matches: { record in OneTimeSecrets.codeMatches(nonce, userID: record.userID, storedHash: record.codeHash) },
            failed: codeFailureAudit(client: nil),
            complete: { user, _ in TokenRedemption(user: user, preserving: others) })
        guard case .redeemed = outcome else { throw AuthError.reauthenticationNotValid }
    }
}
