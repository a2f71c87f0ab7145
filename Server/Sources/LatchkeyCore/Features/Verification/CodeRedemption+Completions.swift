import Foundation
import LatchkeyAPI

extension CodeRedemption {
    /// What a matching token completes for `user`, or why it cannot.
    func completed(user: UserRecord, token: OneTimeTokenRecord) throws -> Result<TokenRedemption, AuthError> {
        if case .nonce = completion {
            return .success(TokenRedemption(user: user, preserving: Set(OneTimeTokenKind.allCases).subtracting([.reauthentication])))
        }
        if user.isBanned(at: now) { return .failure(.userBanned) }
        switch completion {
        case .emailSignIn(let method): return .success(signedIn(user.signedInByEmail(at: now), method: method))
        case .phoneSignIn: return .success(signedIn(user.signedInByPhone(at: now), method: completion.method))
        case .phoneChange: return phoneChanged(user, token: token)
        case .emailChange: return try emailChanged(user, token: token)
        case .nonce: preconditionFailure("handled above")
        }
    }

    /// `user` signed in by `method`: a new session and the login event.
    func signedIn(_ user: UserRecord, method: String) -> TokenRedemption {
        TokenRedemption(
            user: user, session: records.answers.newSession(for: user, method: method, client: client ?? ClientInfo(ip: ""), now: now),
            audit: [login(user, method: method)])
    }

    func login(_ user: UserRecord, method: String) -> AuditEvent {
        records.events.event(.login, user: user, details: ["method": .string(method)], client: client)
    }

    /// A phone-change code: the user moves to the new number, confirmed, and is signed in.
    func phoneChanged(_ user: UserRecord, token: OneTimeTokenRecord) -> Result<TokenRedemption, AuthError> {
        // A code for a number the user no longer waits for does not count.
        guard let newPhone = user.newPhone, token.relatesTo == newPhone else { return .failure(.otpInvalid) }
        var updated = user
        updated.phone = newPhone
        updated.newPhone = nil
        updated.phoneChangeSentAt = nil
        updated.phoneConfirmedAt = now
        updated.lastSignInAt = now
        updated.updatedAt = now
        updated.addProvider("phone")
        // A confirmed number makes an anonymous user permanent.
        updated.isAnonymous = false
        var redemption = signedIn(updated, method: completion.method)
        redemption.identityPhone = newPhone
        redemption.audit.insert(
            records.events.event(
                .phoneChanged, user: updated, details: ["from": user.phone.map(JSONValue.string) ?? .null], client: client),
            at: 0)
        return .success(redemption)
    }

    /// One email-change confirmation: counted and, when it was the last one needed, the user
    /// moves to the new address, is signed in, and the old address is told.
    func emailChanged(_ user: UserRecord, token: OneTimeTokenRecord) throws -> Result<TokenRedemption, AuthError> {
        // A code from an earlier change request (to another address) no longer counts.
        guard let newEmail = user.newEmail, token.relatesTo == (token.kind == .emailChangeNew ? newEmail : user.email) else {
            return .failure(.otpInvalid)
        }
        var updated = user
        updated.updatedAt = now
        updated.emailChangeConfirmationsNeeded = max(0, user.emailChangeConfirmationsNeeded - 1)
        if updated.emailChangeConfirmationsNeeded > 0 {
            return .success(
                TokenRedemption(user: updated, preserving: [token.kind == .emailChangeNew ? .emailChangeCurrent : .emailChangeNew]))
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
        var redemption = signedIn(updated, method: completion.method)
        redemption.identityEmail = newEmail
        if let old {
            redemption.outbox = try records.notices.rows([
                records.notices.composer.email(.emailChanged, to: old, user: updated, newEmail: newEmail, oldEmail: old)
            ])
        }
        redemption.audit.insert(
            records.events.event(.emailChanged, user: updated, details: ["from": old.map(JSONValue.string) ?? .null], client: client), at: 0
        )
        return .success(redemption)
    }
}

extension UserRecord {
    /// The user after a sign-in by an SMS code at `now`: the number confirmed if it was not, the
    /// last sign-in moved on.
    func signedInByPhone(at now: Date) -> UserRecord {
        var updated = self
        if updated.phoneConfirmedAt == nil { updated.phoneConfirmedAt = now }
        updated.lastSignInAt = now
        updated.updatedAt = now
        return updated
    }
}
