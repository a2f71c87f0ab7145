import Foundation
import LatchkeyAPI

extension AdminUsers {
    /// `PUT /admin/users/{id}`: changes applied at once (an email or phone change needs no
    /// confirmation); a ban ends the user's sessions.
    ///
    /// A new password (`password` or `password_hash`) or a ban also ends every session and device
    /// key of the user, as GoTrue signs the user out: after a compromise, the attacker's refresh
    /// tokens and keys stop working. The change is applied to the copy it lands on: a sign-in
    /// that wrote in between does not undo it, nor does it undo the sign-in's new session.
    public func update(id raw: String, _ request: AdminUserAttributes) async throws -> User {
        let found = try await existingUser(raw)
        let changesPassword = request.password != nil || request.passwordHash != nil
        let newPasswordHash = changesPassword ? try await passwordHash(request) : nil
        return try await store.onFreshCopies(of: found) { current in
            try await adminUpdate(current, request, newPasswordHash: newPasswordHash, changesPassword: changesPassword)
        }
    }

    private func adminUpdate(
        _ current: UserRecord, _ request: AdminUserAttributes, newPasswordHash: String?, changesPassword: Bool
    ) async throws -> User {
        var user = current
        let before = user
        if let raw = request.email, !raw.isEmpty {
            let email = try EmailAddress.requestAddress(raw)
            if email != user.email {
                if try await store.user(email: email) != nil {
                    throw AuthError(.emailExists, "A user with this email address has already been registered")
                }
                user.email = email
                user.newEmail = nil
                var providers = user.appMetadata["providers"]?.arrayValue ?? []
                if !providers.contains("email") { providers.append("email") }
                user.appMetadata["providers"] = .array(providers)
            }
        }
        if let raw = request.phone, !raw.isEmpty {
            let phone = try PhoneNumber.requestNumber(raw, enabled: settings.phoneEnabled)
            if phone != user.phone {
                if try await store.user(phone: phone) != nil {
                    throw AuthError(.phoneExists, "A user with this phone number has already been registered")
                }
                user.phone = phone
                user.newPhone = nil
                var providers = user.appMetadata["providers"]?.arrayValue ?? []
                if !providers.contains("phone") { providers.append("phone") }
                user.appMetadata["providers"] = .array(providers)
            }
        }
        if changesPassword { user.passwordHash = newPasswordHash }
        // As GoTrue: `true` confirms, `false` changes nothing (an operator cannot un-confirm).
        if request.emailConfirm == true { user.emailConfirmedAt = user.emailConfirmedAt ?? time.now() }
        if request.phoneConfirm == true { user.phoneConfirmedAt = user.phoneConfirmedAt ?? time.now() }
        let wasBanned = user.isBanned(at: time.now())
        try apply(request, to: &user, creating: false)
        user.updatedAt = time.now()
        var details: [String: JSONValue] = ["fields": .array(request.fieldsSet.map(JSONValue.string))]
        if let until = user.bannedUntil { details["banned_until"] = .string(WireJSON.formatDate(until)) }
        // An address change is also the event a user's own change records, marked as the operator's.
        var audit = [events.event(.userModified, user: user, details: details)]
        if user.email != before.email {
            audit.append(
                events.event(.emailChanged, user: user, details: ["from": before.email.map(JSONValue.string) ?? .null, "via": "admin"]))
        }
        if user.phone != before.phone {
            audit.append(
                events.event(.phoneChanged, user: user, details: ["from": before.phone.map(JSONValue.string) ?? .null, "via": "admin"]))
        }
        let endSessions = (!wasBanned && user.isBanned(at: time.now())) || changesPassword
        try await store.adminUpdateUser(user, endSessions: endSessions, audit: audit)
        return try await records.answers.wireUser(user)
    }

    /// The stored hash for `password` (checked against the policy) or an imported bcrypt hash.
    func passwordHash(_ request: AdminUserAttributes) async throws -> String? {
        if let imported = request.passwordHash {
            guard request.password == nil else { throw AuthError.validation("Only one of password or password_hash can be set") }
            guard imported.range(of: #"^\$2[aby]\$[0-9]{2}\$[./A-Za-z0-9]{53}$"#, options: .regularExpression) != nil else {
                throw AuthError.validation("password_hash must be a bcrypt hash ($2a$, $2b$ or $2y$)")
            }
            return imported
        }
        guard let password = request.password else { return nil }
        return try await passwords.hashNew(password)
    }

    /// Metadata (merged; `null` deletes), role and ban.
    func apply(_ request: AdminUserAttributes, to user: inout UserRecord, creating: Bool) throws {
        for (key, value) in request.userMetadata ?? [:] {
            if value.isNull { user.userMetadata.removeValue(forKey: key) } else { user.userMetadata[key] = value }
        }
        try UserMetadata.check(user.userMetadata, maxBytes: settings.userMetadataMaxBytes)
        for (key, value) in request.appMetadata ?? [:] where key != "provider" && key != "providers" {
            if value.isNull { user.appMetadata.removeValue(forKey: key) } else { user.appMetadata[key] = value }
        }
        if let role = request.role {
            guard (1...64).contains(role.unicodeScalars.count) else { throw AuthError.validation("role must be 1 to 64 characters") }
            user.role = role
        }
        if let ban = request.banDuration {
            if ban == "none" {
                user.bannedUntil = nil
            } else {
                // Up to Go's longest duration (about 292 years), so GoTrue's "876000h" (100 years) works.
                guard let seconds = GoDuration.seconds(ban), seconds >= 0, seconds <= GoDuration.longest else {
                    throw AuthError.validation("ban_duration must be a duration like 24h or none")
                }
                user.bannedUntil = seconds == 0 ? nil : time.now().addingTimeInterval(seconds)
            }
        }
    }
}
