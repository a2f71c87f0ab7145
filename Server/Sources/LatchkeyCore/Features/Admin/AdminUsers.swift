import Foundation
import LatchkeyAPI

/// The operator's user endpoints (`/admin/users…` with a service-role token, and `latchkey
/// users`): list, look up, create, change and delete users, and seed many at once for load tests.
/// An operator's change needs no confirmation and is applied to the copy it lands on, so a
/// sign-in that wrote in between neither undoes it nor is undone; a ban or a new password ends
/// every session and device key of the user.
public struct AdminUsers: Sendable {
    /// What the admin endpoints are configured with.
    public struct Settings: Sendable {
        /// The `aud` a user list answers with.
        public var audience: String
        /// Whether phone numbers may be set (`GOTRUE_EXTERNAL_PHONE_ENABLED`).
        public var phoneEnabled: Bool
        /// The largest user metadata in bytes of JSON.
        public var userMetadataMaxBytes: Int

        public init(audience: String, phoneEnabled: Bool, userMetadataMaxBytes: Int) {
            self.audience = audience
            self.phoneEnabled = phoneEnabled
            self.userMetadataMaxBytes = userMetadataMaxBytes
        }

        /// The settings of `configuration`.
        public init(_ configuration: AuthConfiguration) {
            self.init(
                audience: configuration.jwt.audience, phoneEnabled: configuration.sms.enabled,
                userMetadataMaxBytes: configuration.userMetadataMaxBytes)
        }
    }

    let store: any AdminUserStore
    let passwords: Passwords
    /// Makes new users and stores them.
    let codes: Codes
    let records: Records
    let settings: Settings
    /// Revokes the providers' access when a user is deleted; `nil`: nothing to revoke.
    let grants: ProviderGrants?

    public init(
        store: any AdminUserStore, passwords: Passwords, codes: Codes, records: Records, settings: Settings,
        grants: ProviderGrants? = nil
    ) {
        self.grants = grants
        self.store = store
        self.passwords = passwords
        self.codes = codes
        self.records = records
        self.settings = settings
    }

    var time: any TimeSource { records.time }
    var events: AuditEvents { records.events }

    /// `GET /admin/users`: a page (1-based) of users, newest first, and the total; `anonymous`
    /// keeps only anonymous users (`true`) or only permanent ones (`false`).
    public func list(page: Int, perPage: Int, emailFilter: String?, anonymous: Bool? = nil) async throws
        -> (AdminUserList, total: Int)
    {
        let (found, total) = try await store.listUsers(
            emailContains: emailFilter, anonymous: anonymous, offset: (page - 1) * perPage, limit: perPage)
        var users: [User] = []
        for record in found { users.append(try await records.answers.wireUser(record)) }
        return (AdminUserList(users: users, aud: settings.audience), total)
    }

    /// `GET /admin/users/{id}`.
    public func user(id raw: String) async throws -> User {
        try await records.answers.wireUser(try await existingUser(raw))
    }

    /// A user by id, exact email address or phone number (`latchkey users show ada@example.com`).
    public func user(lookup key: String) async throws -> User {
        if UUID(text: key) != nil { return try await user(id: key) }
        var found: UserRecord?
        if key.contains("@") {
            if let email = EmailAddress.canonical(key) { found = try await store.user(email: email) }
        } else if let phone = try? PhoneNumber.requestNumber(key, enabled: settings.phoneEnabled) {
            found = try await store.user(phone: phone)
        }
        guard let found else { throw AuthError.adminUserNotFound }
        return try await records.answers.wireUser(found)
    }

    /// `POST /admin/users`: a user with an email, a phone or both, confirmed when asked, with a
    /// password or an imported bcrypt hash. No mail is sent.
    public func create(_ request: AdminUserAttributes) async throws -> User {
        let email = try request.email.flatMap { $0.isEmpty ? nil : $0 }.map { try EmailAddress.requestAddress($0) }
        let phone = try request.phone.flatMap { $0.isEmpty ? nil : $0 }.map {
            try PhoneNumber.requestNumber($0, enabled: settings.phoneEnabled)
        }
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
            guard let id = UUID(text: raw) else { throw AuthError.validation("id must be a UUID") }
            user.id = id
            identity.userID = id
            identity.providerID = id.lowercasedString
            identity.identityData["sub"] = .string(id.lowercasedString)
        }
        if email != nil, let phone {
            user.phone = phone
            user.phoneConfirmedAt = request.phoneConfirm == true ? time.now() : nil
            user.appMetadata["providers"] = ["email", "phone"]
        }
        try apply(request, to: &user, creating: true)
        guard try await codes.insert(user, identity: identity, token: nil, askingHook: false) else {
            throw AuthError(.emailExists, "A user with this email address or id has already been registered")
        }
        return try await records.answers.wireUser(user)
    }

    /// `DELETE /admin/users/{id}`: the user and everything that belongs to it. GoTrue's soft
    /// delete (`should_soft_delete: true`) is refused rather than done hard behind the caller's
    /// back.
    public func delete(id raw: String, softDelete: Bool = false) async throws {
        guard !softDelete else {
            throw AuthError.validation("should_soft_delete is not supported: Latchkey deletes a user whole (send false or leave it out)")
        }
        guard let id = UUID(text: raw), let user = try await store.user(id: id) else { throw AuthError.adminUserNotFound }
        let held = await grants?.held(by: id) ?? []
        guard try await store.deleteUser(id: id, audit: [events.event(.userDeleted, user: user)]) else {
            throw AuthError.adminUserNotFound
        }
        await grants?.revoke(held)
    }

    func existingUser(_ raw: String) async throws -> UserRecord {
        guard let id = UUID(text: raw), let user = try await store.user(id: id) else {
            throw AuthError.adminUserNotFound
        }
        return user
    }

    /// Creates `count` confirmed email users without passwords, `PREFIX-N@DOMAIN` for N from
    /// `start`, in transactions of `batch` users; calls `progress` with the total after each.
    /// For load tests at scale: no mail, no audit rows.
    public func seed(
        count: Int, start: Int = 0, prefix: String = "seed", domain: String = "example.com", batch: Int = 5_000,
        progress: (Int) -> Void = { _ in }
    ) async throws {
        guard (1...10_000_000).contains(count), start >= 0 else { throw AuthError.validation("count must be 1–10,000,000") }
        guard EmailAddress.canonical("\(prefix)-\(start)@\(domain)") != nil else {
            throw AuthError.validation("\(prefix)-\(start)@\(domain) is not an email address")
        }
        var done = 0
        while done < count {
            let size = min(max(1, batch), count - done)
            let users = (0..<size).map { offset in
                codes.newUser(
                    email: "\(prefix)-\(start + done + offset)@\(domain)".lowercased(), passwordHash: nil, data: [:], confirmed: true)
            }
            do {
                try await store.insertUsers(users.map { (user: $0.0, identity: $0.1) })
            } catch let error as StoreError where error.isDuplicate {
                throw AuthError(.emailExists, "an address from \(prefix)-\(start + done) on is taken; choose another --start or --prefix")
            }
            done += size
            progress(done)
        }
    }
}
