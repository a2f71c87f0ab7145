import Foundation
import LatchkeyAPI

extension AuthService {
    /// `GET /admin/users`: a page (1-based) of users, newest first, and the total; `anonymous`
    /// keeps only anonymous users (`true`) or only permanent ones (`false`).
    public func adminListUsers(page: Int, perPage: Int, emailFilter: String?, anonymous: Bool? = nil) async throws
        -> (AdminUserList, total: Int)
    {
        let (records, total) = try await store.listUsers(
            emailContains: emailFilter, anonymous: anonymous, offset: (page - 1) * perPage, limit: perPage)
        var users: [User] = []
        for record in records { users.append(try await wireUser(record)) }
        return (AdminUserList(users: users, aud: configuration.jwt.audience), total)
    }

    /// `GET /admin/users/{id}`.
    public func adminUser(id raw: String) async throws -> User {
        try await wireUser(try await existingUser(raw))
    }

    /// A user by id, exact email address or phone number (`latchkey users show ada@example.com`).
    public func adminUser(lookup key: String) async throws -> User {
        if UUID(uuidString: key) != nil { return try await adminUser(id: key) }
        var found: UserRecord?
        if key.contains("@") {
            if let email = EmailAddress.canonical(key) { found = try await store.user(email: email) }
        } else if let phone = try? canonicalPhone(key) {
            found = try await store.user(phone: phone)
        }
        guard let found else { throw AuthError.adminUserNotFound }
        return try await wireUser(found)
    }

    /// `POST /admin/users`: a user with an email, a phone or both, confirmed when asked, with a
    /// password or an imported bcrypt hash. No mail is sent.
    public func adminCreateUser(_ request: AdminUserAttributes) async throws -> User {
        let email = try request.email.flatMap { $0.isEmpty ? nil : $0 }.map { try canonicalEmail($0) }
        let phone = try request.phone.flatMap { $0.isEmpty ? nil : $0 }.map { try canonicalPhone($0) }
        guard email != nil || phone != nil else { throw AuthError.validation("Unable to validate email address: invalid format") }
        if let email, try await store.user(email: email) != nil {
            throw AuthError(.emailExists, "A user with this email address has already been registered")
        }
        if let phone, try await store.user(phone: phone) != nil {
            throw AuthError(.phoneExists, "A user with this phone number has already been registered")
        }
        let hash = try await passwordHash(request)
        var (user, identity) =
            if let email {
                codes.newUser(email: email, passwordHash: hash, data: [:], confirmed: request.emailConfirm == true)
            } else {
                codes.newPhoneUser(phone: phone!, passwordHash: hash, data: [:], confirmed: request.phoneConfirm == true)
            }
        if let raw = request.id {
            guard let id = UUID(uuidString: raw) else { throw AuthError.validation("id must be a UUID") }
            user.id = id
            identity.userID = id
            identity.providerID = id.uuidString.lowercased()
            identity.identityData["sub"] = .string(id.uuidString.lowercased())
        }
        if email != nil, let phone {
            user.phone = phone
            user.phoneConfirmedAt = request.phoneConfirm == true ? time.now() : nil
            user.appMetadata["providers"] = ["email", "phone"]
        }
        try apply(request, to: &user, creating: true)
        guard try await codes.insert(user, identity: identity, token: nil) else {
            throw AuthError(.emailExists, "A user with this email address or id has already been registered")
        }
        return try await wireUser(user)
    }

    /// `PUT /admin/users/{id}`: changes applied at once (an email or phone change needs no
    /// confirmation); a ban ends the user's sessions.
    ///
    /// A new password (`password` or `password_hash`) or a ban also ends every session and device
    /// key of the user, as GoTrue signs the user out: after a compromise, the attacker's refresh
    /// tokens and keys stop working. The change is applied to the copy it lands on: a sign-in
    /// that wrote in between does not undo it, nor does it undo the sign-in's new session.
    public func adminUpdateUser(id raw: String, _ request: AdminUserAttributes) async throws -> User {
        let found = try await existingUser(raw)
        let changesPassword = request.password != nil || request.passwordHash != nil
        let newPasswordHash = changesPassword ? try await passwordHash(request) : nil
        return try await onFreshCopies(of: found) { current in
            try await adminUpdate(current, request, newPasswordHash: newPasswordHash, changesPassword: changesPassword)
        }
    }

    private func adminUpdate(
        _ current: UserRecord, _ request: AdminUserAttributes, newPasswordHash: String?, changesPassword: Bool
    ) async throws -> User {
        var user = current
        let before = user
        if let raw = request.email, !raw.isEmpty {
            let email = try canonicalEmail(raw)
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
            let phone = try canonicalPhone(raw)
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
        var audit = [auditEvent(.userModified, user: user, details: details)]
        if user.email != before.email {
            audit.append(
                auditEvent(.emailChanged, user: user, details: ["from": before.email.map(JSONValue.string) ?? .null, "via": "admin"]))
        }
        if user.phone != before.phone {
            audit.append(
                auditEvent(.phoneChanged, user: user, details: ["from": before.phone.map(JSONValue.string) ?? .null, "via": "admin"]))
        }
        let endSessions = (!wasBanned && user.isBanned(at: time.now())) || changesPassword
        try await store.adminUpdateUser(user, endSessions: endSessions, audit: audit)
        return try await wireUser(user)
    }

    /// `DELETE /admin/users/{id}`: the user and everything that belongs to it. GoTrue's soft
    /// delete (`should_soft_delete: true`) is refused rather than done hard behind the caller's
    /// back.
    public func adminDeleteUser(id raw: String, softDelete: Bool = false) async throws {
        guard !softDelete else {
            throw AuthError.validation("should_soft_delete is not supported: Latchkey deletes a user whole (send false or leave it out)")
        }
        guard let id = UUID(uuidString: raw), let user = try await store.user(id: id),
            try await store.deleteUser(id: id, audit: [auditEvent(.userDeleted, user: user)])
        else { throw AuthError.adminUserNotFound }
    }

    func existingUser(_ raw: String) async throws -> UserRecord {
        guard let id = UUID(uuidString: raw), let user = try await store.user(id: id) else {
            throw AuthError.adminUserNotFound
        }
        return user
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
        try checkMetadataSize(user.userMetadata)
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
