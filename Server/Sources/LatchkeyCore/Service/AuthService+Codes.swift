import Foundation
import LatchkeyAPI

extension AuthService {
    /// A freshly made code, its link secret and the record that stores them hashed.
    struct IssuedCode {
        var code: String
        var linkSecret: String
        var record: OneTimeTokenRecord
    }

    /// Makes a code of `kind` for `user`, valid for the configured time.
    func makeCode(
        for user: UserRecord, kind: OneTimeTokenKind, address: String, redirectTo: String?, challenge: PKCEChallenge?, now: Date
    ) -> IssuedCode {
        let code = SecureRandom.digits(configuration.otp.length)
        let secret = OneTimeSecrets.newLinkSecret()
        let record = OneTimeTokenRecord(
            id: random.uuid(), userID: user.id, kind: kind, relatesTo: address,
            codeHash: OneTimeSecrets.codeHash(code, userID: user.id), linkHash: OneTimeSecrets.linkHash(secret),
            redirectTo: redirectTo, challenge: challenge, createdAt: now,
            expiresAt: now.addingTimeInterval(Double(configuration.otp.expiry)))
        return IssuedCode(code: code, linkSecret: secret, record: record)
    }

    /// The email that carries `issued` to `user`.
    func message(for issued: IssuedCode, user: UserRecord, redirectTo: String) -> EmailMessage {
        let kind: MessageKind =
            switch issued.record.kind {
            case .confirmation: .confirmation
            case .magiclink: .magicLink
            case .recovery: .recovery
            case .emailChangeCurrent: .emailChangeCurrent
            case .emailChangeNew: .emailChange
            case .reauthentication: .reauthentication
            case .invite: .invite
            case .sms, .phoneChange: .sms
            }
        return composer.email(
            kind, to: issued.record.relatesTo, user: user, code: issued.code, linkSecret: issued.linkSecret, redirectTo: redirectTo)
    }

    /// Replaces the user's code of `kind` with a new one and emails it, after the cooldown and
    /// email limits allow it.
    func sendCode(to user: UserRecord, kind: OneTimeTokenKind, redirectTo: String?, challenge: PKCEChallenge? = nil) async throws {
        guard let address = user.email else { throw AuthError.emailRequired }
        let now = time.now()
        try checkCooldown(lastSent: kind == .confirmation ? user.confirmationSentAt : user.recoverySentAt, now: now)
        try await countEmail(to: address)
        let resolved = redirects.resolve(redirectTo)
        try await onFreshCopies(of: user) { user in
            // A code sent by a concurrent request in between counts against the cooldown.
            try checkCooldown(lastSent: kind == .confirmation ? user.confirmationSentAt : user.recoverySentAt, now: now)
            guard user.email == address else { throw AuthError.emailRequired }
            let issued = makeCode(for: user, kind: kind, address: address, redirectTo: resolved, challenge: challenge, now: now)
            var updated = user
            if kind == .confirmation { updated.confirmationSentAt = now } else { updated.recoverySentAt = now }
            updated.updatedAt = now
            try await store.replaceOneTimeTokens(
                [issued.record], user: updated, outbox: try outbox(message(for: issued, user: updated, redirectTo: resolved)),
                audit: codeSentEvents([issued.record], user: updated))
        }
        outboxSignal.notify()
    }

    /// `POST /otp` with an email: a code (and link) that signs the user in, creating the user
    /// first when `create_user` allows it. With Latchkey's `intent` the answer says whether the
    /// account exists (`signin`: `user_not_found`; `signup`: `user_already_exists`); without it,
    /// known and unknown addresses answer alike.
    ///
    /// The client's budgets are counted in the transaction that stores a new address's user and
    /// code (one commit for the whole request), and on their own before any other write.
    public func sendOTP(_ request: OTPRequest, redirectTo: String?, client: ClientInfo) async throws -> OTPResponse {
        try await limiter.counting(sendLimits(client)) { budget in
            try await sendOTP(request, redirectTo: redirectTo, client: client, budget: budget)
        }
    }

    private func sendOTP(
        _ request: OTPRequest, redirectTo: String?, client: ClientInfo, budget: LimitBudget
    ) async throws -> OTPResponse {
        // GoTrue's rules: an empty string counts as none; an email or a phone, not both; a
        // channel only with a phone.
        let hasEmail = !(request.email?.isEmpty ?? true)
        let hasPhone = !(request.phone?.isEmpty ?? true)
        if hasEmail, hasPhone { throw AuthError.validation("Only an email address or phone number should be provided") }
        if hasEmail, !(request.channel?.isEmpty ?? true) {
            throw AuthError.validation("Channel should only be specified with Phone OTP")
        }
        if hasPhone {
            try await budget.charge()
            return try await sendPhoneOTP(request)
        }
        let email = try canonicalEmail(request.email)
        try checkMetadataSize(request.data ?? [:])
        let challenge = try PKCEChallenge.parse(challenge: request.codeChallenge, method: request.codeChallengeMethod)
        let intent = request.intent
        guard intent == nil || intent == "signin" || intent == "signup" else {
            throw AuthError.validation("intent must be signin or signup")
        }
        if let user = try await store.user(email: email) {
            if intent == "signup", user.isEmailConfirmed { throw AuthError.userAlreadyExists }
            try await budget.charge()
            if !user.isBanned(at: time.now()) {
                try await sendCode(
                    to: user, kind: user.isEmailConfirmed ? .magiclink : .confirmation, redirectTo: redirectTo, challenge: challenge)
            }
            return codeInfo(sentTo: email)
        }
        if intent == "signin" { throw AuthError.unknownForSignIn }
        guard request.createUser ?? true else { throw AuthError.otpSignupDisabled }
        guard !configuration.disableSignup else { throw AuthError.signupDisabled }
        let (user, identity) = newUser(email: email, passwordHash: nil, data: request.data ?? [:], confirmed: false)
        // The new user, its code and the message carrying it, in one transaction that also counts
        // the client's and the address's budgets.
        let now = time.now()
        let resolved = redirects.resolve(redirectTo)
        var pending = user
        pending.confirmationSentAt = now
        let issued = makeCode(for: pending, kind: .confirmation, address: email, redirectTo: resolved, challenge: challenge, now: now)
        let mail = try outbox(message(for: issued, user: pending, redirectTo: resolved))
        let inserted = try await budget.spend(adding: emailLimits(to: email)) { limits in
            try await insert(pending, identity: identity, token: issued.record, outbox: mail, limits: limits)
        }
        if inserted { return codeInfo(sentTo: email) }
        // Lost a race with a concurrent sign-up of the same address: that transaction stored
        // nothing, the counters neither.
        budget.storedNothing()
        try await budget.charge()
        if let winner = try await store.user(email: email) {
            // Send to the winner.
            try await sendCode(
                to: winner, kind: winner.isEmailConfirmed ? .magiclink : .confirmation, redirectTo: redirectTo, challenge: challenge)
        }
        return codeInfo(sentTo: email)
    }

    /// `POST /resend` for `signup`: a new confirmation code for an unconfirmed user. Unknown or
    /// already confirmed addresses get the same answer.
    public func resend(_ request: ResendRequest, redirectTo: String?, client: ClientInfo) async throws -> OTPResponse {
        try await hitSendLimits(client)
        guard let type = request.type else {
            throw AuthError.validation("Missing one of these types: signup, email_change, sms, phone_change")
        }
        switch type {
        case "signup":
            let email = try canonicalEmail(request.email)
            let challenge = try PKCEChallenge.parse(challenge: request.codeChallenge, method: request.codeChallengeMethod)
            if let user = try await store.user(email: email), !user.isEmailConfirmed {
                try await sendCode(to: user, kind: .confirmation, redirectTo: redirectTo, challenge: challenge)
            }
            return codeInfo(sentTo: email)
        case "email_change":
            let email = try canonicalEmail(request.email)
            let challenge = try PKCEChallenge.parse(challenge: request.codeChallenge, method: request.codeChallengeMethod)
            var user = try await store.user(email: email)
            if user?.newEmail == nil { user = try await store.users(newEmail: email).last }
            if let user, let newEmail = user.newEmail {
                _ = try await requestEmailChange(user, to: newEmail, redirectTo: redirectTo, challenge: challenge)
            }
            return codeInfo(sentTo: email)
        case "sms", "phone_change":
            return try await resendPhone(type: type, phone: request.phone)
        default:
            throw AuthError.validation("Missing one of these types: signup, email_change, sms, phone_change")
        }
    }

    /// Where a code went and the rules it follows.
    func codeInfo(sentTo address: String) -> OTPResponse {
        OTPResponse(
            channel: "email", sentTo: EmailAddress.masked(address), codeLength: configuration.otp.length,
            expiresIn: configuration.otp.expiry, resendAfter: configuration.otp.sendFrequency,
            maxAttempts: configuration.otp.maxAttempts)
    }

    /// A new user with an email identity, not yet stored.
    func newUser(email: String, passwordHash: String?, data: [String: JSONValue], confirmed: Bool) -> (UserRecord, IdentityRecord) {
        let now = time.now()
        let id = random.uuid()
        var metadata = data
        if confirmed { metadata["email_verified"] = true }
        let user = UserRecord(
            id: id, aud: configuration.jwt.audience, role: "authenticated", email: email, passwordHash: passwordHash,
            emailConfirmedAt: confirmed ? now : nil, appMetadata: ["provider": "email", "providers": ["email"]],
            userMetadata: metadata, createdAt: now, updatedAt: now)
        let identity = IdentityRecord(
            id: random.uuid(), userID: id, provider: "email", providerID: id.uuidString.lowercased(),
            identityData: [
                "sub": .string(id.uuidString.lowercased()), "email": .string(email), "email_verified": .bool(confirmed),
                "phone_verified": false,
            ], email: email, createdAt: now, updatedAt: now)
        return (user, identity)
    }

    /// Stores a new user with its first code and the messages carrying it, recording `audit`, by
    /// default the sign-up (`user_created` when an operator acts) and the code sent; `false` when
    /// the address was taken meanwhile.
    func insert(
        _ user: UserRecord, identity: IdentityRecord, token: OneTimeTokenRecord?, outbox: [OutboxRecord] = [],
        audit explicit: [AuditEvent]? = nil, limits: [RateLimitCounter] = []
    ) async throws -> Bool {
        let action: AuditAction = AuditContext.current.operatorName != nil ? .userCreated : .userSignedUp
        let audit =
            explicit
            ?? [auditEvent(action, user: user, details: ["provider": .string(identity.provider)])]
            + codeSentEvents(token.map { [$0] } ?? [], user: user)
        do {
            try await store.createUser(user, identity: identity, token: token, outbox: outbox, audit: audit, limits: limits)
            if !outbox.isEmpty { outboxSignal.notify() }
            return true
        } catch let error as StoreError where error.isDuplicate {
            return false
        }
    }
}
