import Foundation

/// `POST /admin/users` and `PUT /admin/users/{id}` (GoTrue's `AdminUserParams`): what an operator
/// sets on a user. Every field is optional on update.
public struct AdminUserAttributes: Codable, Sendable, Equatable {
    /// The user's id, on creation only (`id`).
    public var id: String?
    /// The email address; an update applies it at once, with no confirmation mail (`email`).
    public var email: String?
    /// The phone number, E.164 (`phone`).
    public var phone: String?
    /// A new password, checked against the password policy (`password`).
    public var password: String?
    /// A bcrypt hash imported from GoTrue, instead of `password` (`password_hash`).
    public var passwordHash: String?
    /// Mark the email as confirmed (`email_confirm`).
    public var emailConfirm: Bool?
    /// Mark the phone as confirmed (`phone_confirm`).
    public var phoneConfirm: Bool?
    /// Merged into the user's metadata; a `null` value deletes a key (`user_metadata`).
    public var userMetadata: [String: JSONValue]?
    /// Merged into the app metadata; a `null` value deletes a key (`app_metadata`).
    public var appMetadata: [String: JSONValue]?
    /// The user's role claim (`role`).
    public var role: String?
    /// A Go duration such as `24h` or `30m`, or `none` to lift a ban (`ban_duration`).
    public var banDuration: String?

    /// Creates attributes.
    public init(
        id: String? = nil, email: String? = nil, phone: String? = nil, password: String? = nil, passwordHash: String? = nil,
        emailConfirm: Bool? = nil, phoneConfirm: Bool? = nil, userMetadata: [String: JSONValue]? = nil,
        appMetadata: [String: JSONValue]? = nil, role: String? = nil, banDuration: String? = nil
    ) {
        self.id = id
        self.email = email
        self.phone = phone
        self.password = password
        self.passwordHash = passwordHash
        self.emailConfirm = emailConfirm
        self.phoneConfirm = phoneConfirm
        self.userMetadata = userMetadata
        self.appMetadata = appMetadata
        self.role = role
        self.banDuration = banDuration
    }

    enum CodingKeys: String, CodingKey {
        case id, email, phone, password, role
        case passwordHash = "password_hash"
        case emailConfirm = "email_confirm"
        case phoneConfirm = "phone_confirm"
        case userMetadata = "user_metadata"
        case appMetadata = "app_metadata"
        case banDuration = "ban_duration"
    }
}

/// `GET /admin/users`: a page of users, newest first.
public struct AdminUserList: Codable, Sendable, Equatable {
    /// The users on this page (`users`).
    public var users: [User]
    /// The audience (`aud`).
    public var aud: String

    /// Creates a page.
    public init(users: [User], aud: String) {
        self.users = users
        self.aud = aud
    }
}

extension AdminUserAttributes {
    /// The wire names of the fields that are set, for the audit log (never their values).
    public var fieldsSet: [String] {
        let fields: [(String, Bool)] = [
            ("email", email != nil), ("phone", phone != nil), ("password", password != nil), ("password_hash", passwordHash != nil),
            ("email_confirm", emailConfirm != nil), ("phone_confirm", phoneConfirm != nil), ("user_metadata", userMetadata != nil),
            ("app_metadata", appMetadata != nil), ("role", role != nil), ("ban_duration", banDuration != nil),
        ]
        return fields.filter(\.1).map(\.0)
    }
}

/// The optional body of `DELETE /admin/users/{id}`.
public struct AdminDeleteUserRequest: Codable, Sendable, Equatable {
    /// GoTrue's soft delete, which Latchkey refuses (`should_soft_delete`).
    public var shouldSoftDelete: Bool?

    /// Creates a request.
    public init(shouldSoftDelete: Bool? = nil) {
        self.shouldSoftDelete = shouldSoftDelete
    }

    enum CodingKeys: String, CodingKey {
        case shouldSoftDelete = "should_soft_delete"
    }
}
