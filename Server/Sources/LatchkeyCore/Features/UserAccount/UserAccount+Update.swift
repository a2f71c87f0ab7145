import Foundation
import LatchkeyAPI

extension UserAccount {
    /// `PUT /user`: merge metadata (a `null` deletes a key) and change the password. Changing
    /// the password ends every other session of the user.
    public func update(
        _ request: UpdateUserRequest, principal: Principal, client: ClientInfo, redirectTo: String? = nil
    ) async throws -> User {
        try await limiter.hit(codes.sendLimits(client))
        if request.appMetadata != nil, !principal.isAdmin { throw AuthError.notAdmin }
        // As GoTrue: an anonymous user gets a password only together with an address to sign in with.
        if principal.user.isAnonymous, let password = request.password, !password.isEmpty, request.email?.isEmpty ?? true,
            request.phone?.isEmpty ?? true
        {
            throw AuthError.unprocessable("Updating password of an anonymous user without an email or phone is not allowed")
        }
        // A credential change needs aal2 and, from an old session, a fresh nonce (spent once,
        // here, not again if the write below is retried).
        var changesEmail = false
        if let raw = request.email, !raw.isEmpty { changesEmail = try EmailAddress.requestAddress(raw) != principal.user.email }
        var changesPhone = false
        if let raw = request.phone, !raw.isEmpty {
            changesPhone = try PhoneNumber.requestNumber(raw, enabled: settings.phoneEnabled) != principal.user.phone
        }
        if request.password != nil || changesEmail || changesPhone {
            // Recovery links sign in at `aal1`, so a reset needs the second factor too.
            try await SecondFactorGate(factors: store).require(principal, to: "update email or password")
            try await checkReauthentication(request.nonce, principal: principal)
        }
        // Decided on the copy the write lands on: a ban or a password change by another request
        // in between is seen, not overwritten.
        return try await store.onFreshCopies(of: principal.user) { current in
            if current.isBanned(at: time.now()) { throw AuthError.userBanned }
            return try await update(current, request, principal: principal, client: client, redirectTo: redirectTo)
        }
    }

    private func update(
        _ current: UserRecord, _ request: UpdateUserRequest, principal: Principal, client: ClientInfo, redirectTo: String?
    ) async throws -> User {
        var user = current
        var newEmail: String?
        if let raw = request.email, !raw.isEmpty {
            let email = try EmailAddress.requestAddress(raw)
            if email != user.email { newEmail = email }
        }
        let challenge = try PKCEChallenge.parse(challenge: request.codeChallenge, method: request.codeChallengeMethod)
        var newPhone: String?
        if let raw = request.phone, !raw.isEmpty {
            let phone = try PhoneNumber.requestNumber(raw, enabled: settings.phoneEnabled)
            if phone != user.phone { newPhone = phone }
        }
        let channel = try Codes.channel(request.channel)
        var passwordChanged = false
        if let password = request.password {
            if let refusal = passwords.policy.check(password) { throw refusal }
            if let current = user.passwordHash {
                if settings.password.requireCurrentPassword {
                    guard let given = request.currentPassword, !given.isEmpty else {
                        throw AuthError(.currentPasswordRequired, "Current password required when setting new password.")
                    }
                    guard !passwords.policy.isTooLong(given), try await passwords.verify(given, against: current) else {
                        throw AuthError(.currentPasswordInvalid, "Current password is incorrect.")
                    }
                }
                if try await passwords.verify(password, against: current) { throw AuthError.samePassword }
            }
            user.passwordHash = try await passwords.hash(password)
            passwordChanged = true
        }
        if let data = request.data {
            for (key, value) in data {
                if value.isNull { user.userMetadata.removeValue(forKey: key) } else { user.userMetadata[key] = value }
            }
            try UserMetadata.check(user.userMetadata, maxBytes: settings.userMetadataMaxBytes)
        }
        if let appData = request.appMetadata {
            for (key, value) in appData {
                if value.isNull { user.appMetadata.removeValue(forKey: key) } else { user.appMetadata[key] = value }
            }
        }
        user.updatedAt = time.now()
        // As GoTrue: under autoconfirm, an anonymous user's first address is confirmed at once and
        // the user becomes permanent (its identity is stored with the write below); otherwise the
        // change waits for its code, and what else changed is stored with this request.
        let wasAnonymous = user.isAnonymous
        var upgrades: [AuditEvent] = []
        if let newEmail, wasAnonymous, settings.mailerAutoconfirm {
            if let other = try await store.user(email: newEmail), other.id != user.id { throw AuthError.emailExists }
            user.email = newEmail
            user.emailConfirmedAt = time.now()
            user.userMetadata["email_verified"] = true
            user.addProvider("email")
            user.isAnonymous = false
            upgrades.append(events.event(.emailChanged, user: user, details: ["from": .null, "anonymous": true], client: client))
        } else if let newEmail {
            user = try await codes.requestEmailChange(user, to: newEmail, redirectTo: redirectTo, challenge: challenge)
        }
        if let newPhone, wasAnonymous, settings.smsAutoconfirm {
            if let other = try await store.user(phone: newPhone), other.id != user.id { throw AuthError.phoneExists }
            user.phone = newPhone
            user.phoneConfirmedAt = time.now()
            user.addProvider("phone")
            user.isAnonymous = false
            upgrades.append(events.event(.phoneChanged, user: user, details: ["from": .null, "anonymous": true], client: client))
        } else if let newPhone {
            var pending = try await codes.requestPhoneChange(user, to: newPhone, channel: channel)
            // Keep this request's other changes, which the stored user does not have yet.
            pending.passwordHash = user.passwordHash
            pending.userMetadata = user.userMetadata
            pending.appMetadata = user.appMetadata
            if !upgrades.isEmpty {
                pending.email = user.email
                pending.emailConfirmedAt = user.emailConfirmedAt
                pending.isAnonymous = false
            }
            user = pending
        }
        if !upgrades.isEmpty {
            do {
                try await store.adminUpdateUser(user, endSessions: false, audit: upgrades)
            } catch let error as StoreError where error.isDuplicate {
                // Another user took the address between the check above and this write.
                if let email = user.email, let other = try await store.user(email: email), other.id != user.id {
                    throw AuthError.emailExists
                }
                throw AuthError.phoneExists
            }
            user.version += 1
            if !passwordChanged { return try await records.answers.wireUser(user) }
        }
        if passwordChanged {
            let notice = try records.notices.notice(.passwordChanged, to: user)
            let via = principal.session?.amr.contains { $0.method == "recovery" } == true ? "recovery" : "update"
            try await store.updateUser(
                user, revokingSessionsExcept: principal.session?.id, outbox: notice,
                audit: [events.event(.passwordChanged, user: user, details: ["via": .string(via)], client: client)])
            records.notices.notify()
        } else {
            try await store.updateUser(user)
        }
        return try await records.answers.wireUser(user)
    }
}
