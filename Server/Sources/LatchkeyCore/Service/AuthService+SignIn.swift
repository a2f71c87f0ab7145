import Foundation
import LatchkeyAPI
import Logging

extension AuthService {
    /// `POST /token?grant_type=password`.
    ///
    /// Unknown address, password-less user and wrong password answer alike, after the same
    /// amount of hashing. Failures count per account; past the limit the account answers 429
    /// until the window ends, whichever IP the attempts come from.
    public func signInWithPassword(_ request: PasswordGrantRequest, client: ClientInfo) async throws -> Session {
        try await limiter.hit([tokenLimit(client)])
        if request.email == nil, let phone = request.phone {
            guard let password = request.password, !password.isEmpty else { throw AuthError.invalidCredentials }
            return try await signInWithPhonePassword(phone: phone, password: password, client: client)
        }
        guard let rawEmail = request.email, let password = request.password, !rawEmail.isEmpty, !password.isEmpty else {
            throw AuthError.invalidCredentials
        }
        guard let email = EmailAddress.canonical(rawEmail), !passwordPolicy.isTooLong(password) else {
            throw AuthError.invalidCredentials
        }
        return try await passwordSignIn(
            password: password, identifier: email, failureKey: "signin:fail:\(email)", client: client,
            lookup: { try await store.user(email: email) },
            confirmed: { $0.isEmailConfirmed || configuration.mailerAutoconfirm }, unconfirmed: .emailNotConfirmed)
    }

    /// The password check shared by email and phone: the per-account failure limit, the same
    /// hashing for unknown accounts, then confirmation and ban checks, and the session.
    func passwordSignIn(
        password: String, identifier: String, failureKey: String, client: ClientInfo, lookup: () async throws -> UserRecord?,
        confirmed: (UserRecord) -> Bool, unconfirmed: AuthError
    ) async throws -> Session {
        let failureLimit = configuration.rateLimits.signInFailuresPerAccount
        // The attempt counts as a failure before the hash is checked, so a burst of concurrent
        // guesses cannot all pass the limit; a right password takes it back.
        let reservation = try await limiter.reserve(failureKey, failureLimit)
        let user = try await lookup()
        let matched = try await hasher.verify(password, against: user?.passwordHash ?? decoyHash)
        guard let user, user.passwordHash != nil, matched else {
            let failures = reservation.count
            var events = [
                auditEvent(
                    .loginFailed, userID: user?.id, name: identifier,
                    details: ["method": "password", "reason": user == nil ? "unknown_user" : "invalid_credentials"], client: client)
            ]
            if failures == failureLimit.count {
                events.append(auditEvent(.lockout, userID: user?.id, name: identifier, details: ["kind": "password"], client: client))
            }
            try await store.appendAudit(events)
            throw AuthError.invalidCredentials
        }
        try await limiter.release(reservation)
        let now = time.now()
        let verifiedHash = user.passwordHash
        let original = user
        let rehash: String? = if let hash = verifiedHash, hasher.needsRehash(hash) { try await hasher.hash(password) } else { nil }
        return try await onFreshCopies(of: user) { user in
            // Decided on a fresh copy after a concurrent write: a password changed since it was
            // checked, or an address moved away, refuses as a wrong password would.
            guard user.passwordHash == verifiedHash, user.email == original.email, user.phone == original.phone else {
                throw AuthError.invalidCredentials
            }
            if !confirmed(user) {
                try await store.appendAudit([
                    auditEvent(
                        .loginFailed, user: user, details: ["method": "password", "reason": .string(unconfirmed.code.rawValue)],
                        client: client)
                ])
                throw unconfirmed
            }
            if user.isBanned(at: now) {
                try await store.appendAudit([
                    auditEvent(.loginFailed, user: user, details: ["method": "password", "reason": "user_banned"], client: client)
                ])
                throw AuthError.userBanned
            }
            var signedIn = user
            signedIn.lastSignInAt = now
            signedIn.updatedAt = now
            if let rehash { signedIn.passwordHash = rehash }
            let session = newSession(for: signedIn, method: "password", client: client, now: now)
            try await store.createSession(session, user: signedIn, audit: [loginEvent(signedIn, method: "password", client: client)])
            let weak = passwordPolicy.check(password).map {
                WeakPassword(message: $0.message, reasons: $0.weakPasswordReasons ?? [])
            }
            return try await sessionResponse(user: signedIn, session: session, weakPassword: weak)
        }
    }

    /// The client's `/token` budget.
    func tokenLimit(_ client: ClientInfo) -> LimitBudget.Limit {
        .tokenRequests(from: client, configuration.rateLimits.tokenPerIP)
    }
}
