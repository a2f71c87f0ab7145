import Foundation
import LatchkeyAPI

extension Codes {
    /// Starts changing a user's address: a code and link to the new address and, with secure
    /// email change, to the current one too. The address changes only once every code asked for
    /// has been confirmed (``Verification``). Returns the user with `new_email` set, at the
    /// version the write left it.
    public func requestEmailChange(_ user: UserRecord, to newEmail: String, redirectTo: String?, challenge: PKCEChallenge?) async throws
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
        let composer = records.notices.composer
        var tokens: [OneTimeTokenRecord] = []
        var messages: [EmailMessage] = []
        let toNew = make(for: user, kind: .emailChangeNew, address: newEmail, redirectTo: resolved, challenge: challenge, now: now)
        try await countEmail(to: newEmail)
        tokens.append(toNew.record)
        messages.append(
            composer.email(
                .emailChange, to: newEmail, user: user, code: toNew.code, linkSecret: toNew.linkSecret, redirectTo: resolved,
                newEmail: newEmail, oldEmail: user.email))
        if settings.secureEmailChange, let current = user.email, user.isEmailConfirmed {
            let toCurrent = make(
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
            tokens, user: updated, outbox: try records.notices.rows(messages), audit: sentEvents(tokens, user: updated))
        records.notices.notify()
        // The row moved on with this write; the caller may write the copy again.
        updated.version += 1
        return updated
    }
}
