import Foundation
import LatchkeyAPI

extension SignUp {
    /// `POST /signup` with an email or a phone (``AnonymousUsers`` takes those with neither).
    ///
    /// Anti-enumeration as GoTrue: signing up again with a confirmed address answers like a new
    /// sign-up (a user with a fresh id and no identities) and emails the owner instead; with
    /// autoconfirm on it answers `user_already_exists`. An unconfirmed address gets a new
    /// confirmation code; its password is not changed.
    public func signUp(_ request: SignUpRequest, redirectTo: String?, client: ClientInfo) async throws -> SignUpResult {
        try await limiter.hit(codes.sendLimits(client))
        guard !settings.disableSignup else { throw AuthError.signupDisabled }
        if request.email?.isEmpty ?? true {
            return try await signUpByPhone(request, client: client)
        }
        let email = try EmailAddress.requestAddress(request.email)
        guard let password = request.password, !password.isEmpty else {
            throw AuthError.validation("Signup requires a valid password")
        }
        if let refusal = passwords.policy.check(password) { throw refusal }
        let data = request.data ?? [:]
        try UserMetadata.check(data, maxBytes: settings.userMetadataMaxBytes)
        let challenge = try PKCEChallenge.parse(challenge: request.codeChallenge, method: request.codeChallengeMethod)

        // Hashed for a known address too: the answer's timing must not tell which it is.
        let hash = try await passwords.hash(password)
        if let existing = try await store.user(email: email) {
            return try await repeatedSignUp(existing, data: data, redirectTo: redirectTo, challenge: challenge)
        }

        let confirmed = settings.mailerAutoconfirm
        if !confirmed { try await codes.countEmail(to: email) }
        let (user, identity) = codes.newUser(email: email, passwordHash: hash, data: data, confirmed: confirmed)
        let now = time.now()

        if confirmed {
            guard try await codes.insert(user, identity: identity, token: nil) else { throw AuthError.userAlreadyExists }
            return .session(try await signIn(user, client: client, now: now))
        }

        let resolved = codes.redirects.resolve(redirectTo)
        var pending = user
        pending.confirmationSentAt = now
        let issued = codes.make(
            for: pending, kind: .confirmation, address: email, redirectTo: resolved, challenge: challenge, now: now)
        let mail = try records.notices.rows([codes.message(for: issued, user: pending, redirectTo: resolved)])
        guard try await codes.insert(pending, identity: identity, token: issued.record, outbox: mail) else {
            // A concurrent sign-up with the same address won; answer as for a repeat.
            guard let winner = try await store.user(email: email) else { throw AuthError.userAlreadyExists }
            return .user(obfuscated(winner, data: data))
        }
        return .user(pending.wire(identities: [identity]))
    }

    func repeatedSignUp(
        _ existing: UserRecord, data: [String: JSONValue], redirectTo: String?, challenge: PKCEChallenge?
    ) async throws -> SignUpResult {
        if existing.isEmailConfirmed {
            if settings.mailerAutoconfirm { throw AuthError.userAlreadyExists }
            if let address = existing.email, (try? await codes.countEmail(to: address)) != nil {
                try await store.enqueueOutbox(records.notices.notice(.existingAccount, to: existing))
                records.notices.notify()
            }
            return .user(obfuscated(existing, data: data))
        }
        try await codes.send(to: existing, kind: .confirmation, redirectTo: redirectTo, challenge: challenge)
        guard let refreshed = try await store.user(id: existing.id) else { throw AuthError.userNotFound }
        return .user(try await records.answers.wireUser(refreshed))
    }

    /// GoTrue's `sanitizeUser`: what a repeated sign-up of a confirmed address answers.
    func obfuscated(_ user: UserRecord, data: [String: JSONValue]) -> User {
        let now = time.now()
        return User(
            id: records.random.uuid(), aud: user.aud, role: user.role, email: user.email ?? "", phone: "", confirmationSentAt: now,
            appMetadata: ["provider": "email", "providers": ["email"]], userMetadata: data, identities: [],
            createdAt: now, updatedAt: now)
    }
}
