import Foundation
import LatchkeyAPI

/// A user as the domain and the stores see it.
public struct UserRecord: Sendable, Equatable {
    public var id: UUID
    public var aud: String
    public var role: String
    /// Canonical address (see ``EmailAddress``), or `nil`.
    public var email: String?
    public var phone: String?
    /// A PHC string (`$scrypt$…`) or an imported bcrypt hash; `nil` for password-less users.
    public var passwordHash: String?
    public var emailConfirmedAt: Date?
    public var phoneConfirmedAt: Date?
    public var confirmationSentAt: Date?
    public var recoverySentAt: Date?
    public var lastSignInAt: Date?
    public var appMetadata: [String: JSONValue]
    public var userMetadata: [String: JSONValue]
    public var isAnonymous: Bool
    public var bannedUntil: Date?
    public var createdAt: Date
    public var updatedAt: Date
    /// The address an email change waits to confirm.
    public var newEmail: String?
    public var emailChangeSentAt: Date?
    /// Confirmations the pending email change still needs: 2 (both addresses), 1 or 0.
    public var emailChangeConfirmationsNeeded: Int
    public var reauthenticationSentAt: Date?
    /// The number a phone change waits to confirm.
    public var newPhone: String?
    public var phoneChangeSentAt: Date?
    /// When an operator last invited the user.
    public var invitedAt: Date?
    /// The stored row's version when this copy was read: a write of the copy lands only while
    /// the row is still at it (``StoreError/conflict(_:)`` otherwise).
    public var version: Int64

    public init(
        id: UUID, aud: String, role: String, email: String?, phone: String? = nil, passwordHash: String?,
        emailConfirmedAt: Date? = nil, phoneConfirmedAt: Date? = nil, confirmationSentAt: Date? = nil,
        recoverySentAt: Date? = nil, lastSignInAt: Date? = nil, appMetadata: [String: JSONValue],
        userMetadata: [String: JSONValue], isAnonymous: Bool = false, bannedUntil: Date? = nil, createdAt: Date,
        updatedAt: Date, newEmail: String? = nil, emailChangeSentAt: Date? = nil, emailChangeConfirmationsNeeded: Int = 0,
        reauthenticationSentAt: Date? = nil, newPhone: String? = nil, phoneChangeSentAt: Date? = nil, invitedAt: Date? = nil,
        version: Int64 = 0
    ) {
        self.version = version
        self.invitedAt = invitedAt
        self.newEmail = newEmail
        self.emailChangeSentAt = emailChangeSentAt
        self.emailChangeConfirmationsNeeded = emailChangeConfirmationsNeeded
        self.reauthenticationSentAt = reauthenticationSentAt
        self.newPhone = newPhone
        self.phoneChangeSentAt = phoneChangeSentAt
        self.id = id
        self.aud = aud
        self.role = role
        self.email = email
        self.phone = phone
        self.passwordHash = passwordHash
        self.emailConfirmedAt = emailConfirmedAt
        self.phoneConfirmedAt = phoneConfirmedAt
        self.confirmationSentAt = confirmationSentAt
        self.recoverySentAt = recoverySentAt
        self.lastSignInAt = lastSignInAt
        self.appMetadata = appMetadata
        self.userMetadata = userMetadata
        self.isAnonymous = isAnonymous
        self.bannedUntil = bannedUntil
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// Whether the user is banned at `now`.
    public func isBanned(at now: Date) -> Bool {
        guard let bannedUntil else { return false }
        return bannedUntil > now
    }

    /// Adds `provider` to `app_metadata.providers` when it is not there yet.
    public mutating func addProvider(_ provider: String) {
        var providers = appMetadata["providers"]?.arrayValue ?? []
        if !providers.contains(.string(provider)) { providers.append(.string(provider)) }
        appMetadata["providers"] = .array(providers)
    }

    /// Whether the email address has been confirmed.
    public var isEmailConfirmed: Bool { emailConfirmedAt != nil }

    /// The user as the wire protocol shows it.
    public func wire(identities: [IdentityRecord]) -> User {
        let confirmed = [emailConfirmedAt, phoneConfirmedAt].compactMap { $0 }.min()
        return User(
            id: id, aud: aud, role: role, email: email ?? "", phone: phone ?? "",
            emailConfirmedAt: emailConfirmedAt, phoneConfirmedAt: phoneConfirmedAt, confirmedAt: confirmed,
            confirmationSentAt: confirmationSentAt, recoverySentAt: recoverySentAt, newEmail: newEmail,
            emailChangeSentAt: emailChangeSentAt, newPhone: newPhone, phoneChangeSentAt: phoneChangeSentAt,
            reauthenticationSentAt: reauthenticationSentAt, invitedAt: invitedAt, lastSignInAt: lastSignInAt,
            appMetadata: appMetadata, userMetadata: userMetadata,
            identities: identities.map { $0.wire(emailVerified: isEmailConfirmed) },
            factors: nil, createdAt: createdAt, updatedAt: updatedAt, bannedUntil: bannedUntil,
            isAnonymous: isAnonymous)
    }
}

/// One way a user signs in: for now the `email` provider.
public struct IdentityRecord: Sendable, Equatable {
    public var id: UUID
    public var userID: UUID
    public var provider: String
    public var providerID: String
    public var identityData: [String: JSONValue]
    public var email: String?
    public var lastSignInAt: Date?
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        id: UUID, userID: UUID, provider: String, providerID: String, identityData: [String: JSONValue],
        email: String?, lastSignInAt: Date? = nil, createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.userID = userID
        self.provider = provider
        self.providerID = providerID
        self.identityData = identityData
        self.email = email
        self.lastSignInAt = lastSignInAt
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The identity as the wire protocol shows it; `emailVerified` is the user's current state.
    public func wire(emailVerified: Bool) -> Identity {
        var identityData = identityData
        if provider == "email" { identityData["email_verified"] = .bool(emailVerified) }
        return Identity(
            identityID: id, id: providerID, userID: userID, identityData: identityData, provider: provider,
            email: email, lastSignInAt: lastSignInAt, createdAt: createdAt, updatedAt: updatedAt)
    }
}
