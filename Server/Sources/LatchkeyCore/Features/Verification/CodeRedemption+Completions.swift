import Foundation
import LatchkeyAPI

extension CodeRedemption {
    /// What a matching token completes for a user: the redemption, a refusal, or the notice it
    /// needs sealed first.
    enum Completed {
        case done(TokenRedemption)
        case refused(AuthError)
        case needs(EmailChangeNotice)
    }

    /// What a matching token completes for `user`, or why it cannot.
    func completed(user: UserRecord, token: OneTimeTokenRecord) -> Completed {
        if case .nonce = completion {
            return .done(TokenRedemption(user: user, preserving: Set(OneTimeTokenKind.allCases).subtracting([.reauthentication])))
        }
        if user.isBanned(at: now) { return .refused(.userBanned) }
        switch completion {
        case .emailSignIn(let method): return .done(signedIn(user.signedInByEmail(at: now), method: method))
        case .phoneSignIn: return .done(signedIn(user.signedInByPhone(at: now), method: completion.method))
        case .phoneChange: return phoneChanged(user, token: token)
        case .emailChange: return emailChanged(user, token: token)
        case .nonce: preconditionFailure("handled above")
        }
    }

    /// `user` signed in by `method`: a new session (the prepared id and salt) and the login event.
    func signedIn(_ user: UserRecord, method: String) -> TokenRedemption {
        let session = SessionRecord.new(
            for: user, method: method, client: client ?? ClientInfo(ip: ""), id: prepared.sessionID, refreshSalt: prepared.refreshSalt,
            now: now)
        return TokenRedemption(user: user, session: session, audit: [event(.login, 0, user: user, details: ["method": .string(method)])])
    }

    /// A phone-change code: the user moves to the new number, confirmed, and is signed in.
    func phoneChanged(_ user: UserRecord, token: OneTimeTokenRecord) -> Completed {
        // A code for a number the user no longer waits for does not count.
        guard let newPhone = user.newPhone, token.relatesTo == newPhone else { return .refused(.otpInvalid) }
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
            event(.phoneChanged, 1, user: updated, details: ["from": user.phone.map(JSONValue.string) ?? .null]), at: 0)
        return .done(redemption)
    }

    /// One email-change confirmation: counted and, when it was the last one needed, the user
    /// moves to the new address, is signed in, and the old address is told (by the notice
    /// sealed for this user as read, or else the decision asks for it).
    func emailChanged(_ user: UserRecord, token: OneTimeTokenRecord) -> Completed {
        // A code from an earlier change request (to another address) no longer counts.
        guard let newEmail = user.newEmail, token.relatesTo == (token.kind == .emailChangeNew ? newEmail : user.email) else {
            return .refused(.otpInvalid)
        }
        var updated = user
        updated.updatedAt = now
        updated.emailChangeConfirmationsNeeded = max(0, user.emailChangeConfirmationsNeeded - 1)
        if updated.emailChangeConfirmationsNeeded > 0 {
            return .done(
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
            let wanted = EmailChangeNotice(changed: updated, readVersion: user.version, oldEmail: old)
            guard let notice, notice.isSealed(for: wanted) else { return .needs(wanted) }
            redemption.outbox = notice.rows
        }
        redemption.audit.insert(event(.emailChanged, 1, user: updated, details: ["from": old.map(JSONValue.string) ?? .null]), at: 0)
        return .done(redemption)
    }
}

/// The notice an email change sends its old address, for the user as the store read them: the
/// decision asks for it (``CodeRedemption/Decision/prepare(_:)``), the use case seals it
/// (``sealed(by:)``) and hands it back with the rules (``CodeRedemption/with(_:)``); it is used
/// only while the user is still at the version it was sealed for.
public struct EmailChangeNotice: Sendable {
    /// The user after the change: what the message is rendered from.
    public let changed: UserRecord
    /// The version of the user the change was decided on.
    let readVersion: Int64
    public let oldEmail: String
    /// The sealed outbox rows, once sealed.
    public private(set) var rows: [OutboxRecord] = []

    init(changed: UserRecord, readVersion: Int64, oldEmail: String) {
        self.changed = changed
        self.readVersion = readVersion
        self.oldEmail = oldEmail
    }

    /// The notice, sealed: its message rendered and sealed into outbox rows, with `notices`' ids and time.
    public func sealed(by notices: Notices) throws -> EmailChangeNotice {
        var notice = self
        notice.rows = try notices.rows([
            notices.composer.email(.emailChanged, to: oldEmail, user: changed, newEmail: changed.email, oldEmail: oldEmail)
        ])
        return notice
    }

    /// Whether this is `wanted`, sealed: the same user at the same version, moving between the same addresses.
    func isSealed(for wanted: EmailChangeNotice) -> Bool {
        !rows.isEmpty && changed.id == wanted.changed.id && readVersion == wanted.readVersion && oldEmail == wanted.oldEmail
            && changed.email == wanted.changed.email
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
