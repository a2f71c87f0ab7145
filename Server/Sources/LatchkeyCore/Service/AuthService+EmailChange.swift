import Foundation
import LatchkeyAPI

extension AuthService {
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
        let outcome = try await store.redeem(
            CodeRedemption(
                selector: .newest(userID: user.id, kinds: [.reauthentication]), proof: .code(nonce), completion: .nonce,
                maxAttempts: configuration.otp.maxAttempts, client: nil, records: records))
        guard case .redeemed = outcome else { throw AuthError.reauthenticationNotValid }
    }
}
