import Foundation
import LatchkeyAPI

/// An operator's invitations and links: `POST /invite` (an invitation email whose link or code
/// confirms the address and signs in) and `POST /admin/generate_link` (the link and code an email
/// would carry, for the operator to deliver; no email is sent). A confirmed address is
/// `422 email_exists`; a new address's user is stored with its code, an existing one's code
/// replaces its older one of that kind.
public struct Invitations: Sendable {
    let store: any CodeStore
    let passwords: Passwords
    /// Makes the codes and new users, and stores them.
    let codes: Codes
    let records: Records
    /// The largest `data` (user metadata) in bytes of JSON.
    let userMetadataMaxBytes: Int

    public init(store: any CodeStore, passwords: Passwords, codes: Codes, records: Records, userMetadataMaxBytes: Int) {
        self.store = store
        self.passwords = passwords
        self.codes = codes
        self.records = records
        self.userMetadataMaxBytes = userMetadataMaxBytes
    }

    var time: any TimeSource { records.time }
    var events: AuditEvents { records.events }

    /// `POST /invite`: a new user (or an invited one not yet confirmed) gets an invitation email
    /// whose link or code confirms the address and signs in. A confirmed address is
    /// `422 email_exists`.
    public func invite(_ request: InviteRequest, redirectTo: String?) async throws -> User {
        let email = try EmailAddress.requestAddress(request.email)
        let made = try await invitation(email: email, data: request.data ?? [:], redirectTo: redirectTo)
        try await codes.countEmail(to: email)
        let mail = try records.notices.rows([codes.message(for: made.issued, user: made.user, redirectTo: made.redirectTo)])
        try await save(
            made, outbox: mail,
            audit: [events.event(.userInvited, user: made.user)] + codes.sentEvents([made.issued.record], user: made.user)
        )
        return try await records.answers.wireUser(made.user)
    }

    /// `POST /admin/generate_link`: the link and code an email would carry, for an operator to
    /// deliver; no email is sent.
    public func generateLink(_ request: GenerateLinkRequest) async throws -> GeneratedLink {
        let email = try EmailAddress.requestAddress(request.email)
        let data = request.data ?? [:]
        try UserMetadata.check(data, maxBytes: userMetadataMaxBytes)
        let made: PendingCode
        switch request.type ?? "" {
        case "signup":
            guard let password = request.password, !password.isEmpty else {
                throw AuthError.validation("Signup requires a valid password")
            }
            if let refusal = passwords.policy.check(password) { throw refusal }
            made = try await pendingSignup(email: email, password: password, data: data, redirectTo: request.redirectTo)
        case "invite":
            made = try await invitation(email: email, data: data, redirectTo: request.redirectTo)
        case "magiclink":
            // GoTrue: a magic link for an unknown address signs the address up.
            if let user = try await store.user(email: email) {
                made = pendingCode(for: user, kind: .magiclink, address: email, type: "magiclink", redirectTo: request.redirectTo)
            } else {
                made = try await pendingSignup(email: email, password: nil, data: data, redirectTo: request.redirectTo)
            }
        case "recovery":
            guard let user = try await store.user(email: email) else { throw AuthError.adminUserNotFound }
            made = pendingCode(for: user, kind: .recovery, address: email, type: "recovery", redirectTo: request.redirectTo)
        case "email_change_current", "email_change_new":
            guard let user = try await store.user(email: email) else { throw AuthError.adminUserNotFound }
            let newEmail = try EmailAddress.requestAddress(request.newEmail)
            if let other = try await store.user(email: newEmail), other.id != user.id { throw AuthError.emailExists }
            var changing = user
            changing.newEmail = newEmail
            // The operator vouches for the change: one confirmation, from the address asked for.
            changing.emailChangeConfirmationsNeeded = 1
            let current = request.type == "email_change_current"
            made = pendingCode(
                for: changing, kind: current ? .emailChangeCurrent : .emailChangeNew, address: current ? email : newEmail,
                type: "email_change", redirectTo: request.redirectTo)
        default:
            throw AuthError.validation(
                "type must be signup, invite, magiclink, recovery, email_change_current or email_change_new")
        }
        var audit = [events.event(.linkGenerated, user: made.user, details: ["type": .string(request.type ?? "")])]
        if made.isNew { audit.insert(events.event(request.type == "invite" ? .userInvited : .userCreated, user: made.user), at: 0) }
        try await save(made, outbox: [], audit: audit)
        return GeneratedLink(
            user: try await records.answers.wireUser(made.user),
            actionLink: records.notices.composer.link(
                secret: made.issued.linkSecret, type: made.verificationType, redirectTo: made.redirectTo),
            // GoTrue answers with the type asked for; only the link says `email_change`.
            emailOTP: made.issued.code, hashedToken: made.issued.linkSecret,
            verificationType: made.verificationType == "email_change" ? (request.type ?? "") : made.verificationType,
            redirectTo: made.redirectTo)
    }

    /// A code made for a user (stored or not yet), before it is stored.
    struct PendingCode {
        var user: UserRecord
        /// Set when the user is new and must be created with the code.
        var identity: IdentityRecord?
        var issued: Codes.Issued
        var verificationType: String
        var redirectTo: String
        var isNew: Bool { identity != nil }
    }

    func pendingCode(for user: UserRecord, kind: OneTimeTokenKind, address: String, type: String, redirectTo: String?)
        -> PendingCode
    {
        let now = time.now()
        let resolved = codes.redirects.resolve(redirectTo)
        var updated = user
        updated.updatedAt = now
        switch kind {
        case .confirmation: updated.confirmationSentAt = now
        case .recovery, .magiclink: updated.recoverySentAt = now
        case .emailChangeCurrent, .emailChangeNew: updated.emailChangeSentAt = now
        case .invite:
            // GoTrue stamps both: the invitation is also the address's confirmation.
            updated.invitedAt = now
            updated.confirmationSentAt = now
        default: break
        }
        let issued = codes.make(for: updated, kind: kind, address: address, redirectTo: resolved, challenge: nil, now: now)
        return PendingCode(user: updated, identity: nil, issued: issued, verificationType: type, redirectTo: resolved)
    }

    /// An invitation for `email`: a new user, or the unconfirmed one already there.
    func invitation(email: String, data: [String: JSONValue], redirectTo: String?) async throws -> PendingCode {
        try UserMetadata.check(data, maxBytes: userMetadataMaxBytes)
        if let existing = try await store.user(email: email) {
            guard !existing.isEmailConfirmed else { throw AuthError.emailExists }
            return pendingCode(for: existing, kind: .invite, address: email, type: "invite", redirectTo: redirectTo)
        }
        var (user, identity) = codes.newUser(email: email, passwordHash: nil, data: data, confirmed: false)
        user.invitedAt = time.now()
        var made = pendingCode(for: user, kind: .invite, address: email, type: "invite", redirectTo: redirectTo)
        made.identity = identity
        return made
    }

    /// A sign-up confirmation for `email`: a new user, or the unconfirmed one already there.
    func pendingSignup(email: String, password: String?, data: [String: JSONValue], redirectTo: String?) async throws -> PendingCode {
        if let existing = try await store.user(email: email) {
            guard !existing.isEmailConfirmed else { throw AuthError.emailExists }
            return pendingCode(for: existing, kind: .confirmation, address: email, type: "signup", redirectTo: redirectTo)
        }
        var hash: String?
        if let password { hash = try await passwords.hash(password) }
        let (user, identity) = codes.newUser(email: email, passwordHash: hash, data: data, confirmed: false)
        var made = pendingCode(for: user, kind: .confirmation, address: email, type: "signup", redirectTo: redirectTo)
        made.identity = identity
        return made
    }

    /// Stores the code (and the new user) with the messages carrying it and `audit`.
    func save(_ made: PendingCode, outbox mail: [OutboxRecord], audit: [AuditEvent]) async throws {
        if let identity = made.identity {
            guard try await codes.insert(made.user, identity: identity, token: made.issued.record, outbox: mail, audit: audit) else {
                throw AuthError.emailExists
            }
        } else {
            do {
                try await store.replaceOneTimeTokens([made.issued.record], user: made.user, outbox: mail, audit: audit)
            } catch let error as StoreError where error.isDuplicate {
                throw AuthError.emailExists
            }
            if !mail.isEmpty { records.notices.notify() }
        }
    }
}
