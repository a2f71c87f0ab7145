import Foundation

/// A user as the wire protocol carries it (GoTrue's user object).
public struct User: Codable, Sendable, Equatable, Identifiable {
    /// The user's id (`id`).
    public var id: UUID
    /// The audience the user belongs to, usually `authenticated`; `""` when absent (`aud`).
    public var aud: String
    /// The user's role, usually `authenticated`; `""` when absent (`role`).
    public var role: String
    /// The address, lower-cased; `""` when the user has none.
    public var email: String
    /// The phone number in E.164 without the leading `+`; `""` when the user has none.
    public var phone: String
    /// When the email address was confirmed (`email_confirmed_at`).
    public var emailConfirmedAt: Date?
    /// When the phone number was confirmed (`phone_confirmed_at`).
    public var phoneConfirmedAt: Date?
    /// The earlier of the two confirmation dates (`confirmed_at`); set by the server.
    public var confirmedAt: Date?
    /// When the last sign-up confirmation was sent (`confirmation_sent_at`).
    public var confirmationSentAt: Date?
    /// When the last password-recovery email was sent (`recovery_sent_at`).
    public var recoverySentAt: Date?
    /// The address an email change waits to confirm (`new_email`).
    public var newEmail: String?
    /// When the email-change confirmation was sent (`email_change_sent_at`).
    public var emailChangeSentAt: Date?
    /// The phone number a phone change waits to confirm (`new_phone`).
    public var newPhone: String?
    /// When the phone-change code was sent (`phone_change_sent_at`).
    public var phoneChangeSentAt: Date?
    /// When the last reauthentication code was sent (`reauthentication_sent_at`).
    public var reauthenticationSentAt: Date?
    /// When the user was invited (`invited_at`).
    public var invitedAt: Date?
    /// When the user last signed in (`last_sign_in_at`).
    public var lastSignInAt: Date?
    /// Data the server manages, e.g. `provider` and `providers`; only admins change it (`app_metadata`).
    public var appMetadata: [String: JSONValue]
    /// Free-form data the user may change, first set from sign-up's `data` (`user_metadata`).
    public var userMetadata: [String: JSONValue]
    /// The ways the user signs in (`identities`); `nil` when the server left them out.
    public var identities: [Identity]?
    /// The user's MFA factors, unverified ones included (`factors`); `nil` when left out.
    public var factors: [Factor]?
    /// When the user was created (`created_at`).
    public var createdAt: Date
    /// When the user last changed (`updated_at`).
    public var updatedAt: Date
    /// The user is banned until this date (`banned_until`).
    public var bannedUntil: Date?
    /// When the user was soft-deleted (`deleted_at`).
    public var deletedAt: Date?
    /// Whether the user signed in anonymously (`is_anonymous`); `false` when absent.
    public var isAnonymous: Bool

    /// Creates a user. On the wire, dates are ISO 8601 strings (see ``WireJSON``).
    public init(
        id: UUID, aud: String, role: String, email: String, phone: String,
        emailConfirmedAt: Date? = nil, phoneConfirmedAt: Date? = nil, confirmedAt: Date? = nil,
        confirmationSentAt: Date? = nil, recoverySentAt: Date? = nil, newEmail: String? = nil,
        emailChangeSentAt: Date? = nil, newPhone: String? = nil, phoneChangeSentAt: Date? = nil,
        reauthenticationSentAt: Date? = nil, invitedAt: Date? = nil, lastSignInAt: Date? = nil,
        appMetadata: [String: JSONValue] = [:], userMetadata: [String: JSONValue] = [:],
        identities: [Identity]? = [], factors: [Factor]? = nil, createdAt: Date, updatedAt: Date,
        bannedUntil: Date? = nil, deletedAt: Date? = nil, isAnonymous: Bool = false
    ) {
        self.id = id
        self.aud = aud
        self.role = role
        self.email = email
        self.phone = phone
        self.emailConfirmedAt = emailConfirmedAt
        self.phoneConfirmedAt = phoneConfirmedAt
        self.confirmedAt = confirmedAt
        self.confirmationSentAt = confirmationSentAt
        self.recoverySentAt = recoverySentAt
        self.newEmail = newEmail
        self.emailChangeSentAt = emailChangeSentAt
        self.newPhone = newPhone
        self.phoneChangeSentAt = phoneChangeSentAt
        self.reauthenticationSentAt = reauthenticationSentAt
        self.invitedAt = invitedAt
        self.lastSignInAt = lastSignInAt
        self.appMetadata = appMetadata
        self.userMetadata = userMetadata
        self.identities = identities
        self.factors = factors
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.bannedUntil = bannedUntil
        self.deletedAt = deletedAt
        self.isAnonymous = isAnonymous
    }

    enum CodingKeys: String, CodingKey {
        case id, aud, role, email, phone, identities, factors
        case emailConfirmedAt = "email_confirmed_at"
        case phoneConfirmedAt = "phone_confirmed_at"
        case confirmedAt = "confirmed_at"
        case confirmationSentAt = "confirmation_sent_at"
        case recoverySentAt = "recovery_sent_at"
        case newEmail = "new_email"
        case emailChangeSentAt = "email_change_sent_at"
        case newPhone = "new_phone"
        case phoneChangeSentAt = "phone_change_sent_at"
        case reauthenticationSentAt = "reauthentication_sent_at"
        case invitedAt = "invited_at"
        case lastSignInAt = "last_sign_in_at"
        case appMetadata = "app_metadata"
        case userMetadata = "user_metadata"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case bannedUntil = "banned_until"
        case deletedAt = "deleted_at"
        case isAnonymous = "is_anonymous"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(UUID.self, forKey: .id)
        aud = try c.decodeIfPresent(String.self, forKey: .aud) ?? ""
        role = try c.decodeIfPresent(String.self, forKey: .role) ?? ""
        email = try c.decodeIfPresent(String.self, forKey: .email) ?? ""
        phone = try c.decodeIfPresent(String.self, forKey: .phone) ?? ""
        emailConfirmedAt = try c.decodeIfPresent(Date.self, forKey: .emailConfirmedAt)
        phoneConfirmedAt = try c.decodeIfPresent(Date.self, forKey: .phoneConfirmedAt)
        confirmedAt = try c.decodeIfPresent(Date.self, forKey: .confirmedAt)
        confirmationSentAt = try c.decodeIfPresent(Date.self, forKey: .confirmationSentAt)
        recoverySentAt = try c.decodeIfPresent(Date.self, forKey: .recoverySentAt)
        newEmail = try c.decodeIfPresent(String.self, forKey: .newEmail)
        emailChangeSentAt = try c.decodeIfPresent(Date.self, forKey: .emailChangeSentAt)
        newPhone = try c.decodeIfPresent(String.self, forKey: .newPhone)
        phoneChangeSentAt = try c.decodeIfPresent(Date.self, forKey: .phoneChangeSentAt)
        reauthenticationSentAt = try c.decodeIfPresent(Date.self, forKey: .reauthenticationSentAt)
        invitedAt = try c.decodeIfPresent(Date.self, forKey: .invitedAt)
        lastSignInAt = try c.decodeIfPresent(Date.self, forKey: .lastSignInAt)
        appMetadata = try c.decodeIfPresent([String: JSONValue].self, forKey: .appMetadata) ?? [:]
        userMetadata = try c.decodeIfPresent([String: JSONValue].self, forKey: .userMetadata) ?? [:]
        identities = try c.decodeIfPresent([Identity].self, forKey: .identities)
        factors = try c.decodeIfPresent([Factor].self, forKey: .factors)
        createdAt = try c.decode(Date.self, forKey: .createdAt)
        updatedAt = try c.decode(Date.self, forKey: .updatedAt)
        bannedUntil = try c.decodeIfPresent(Date.self, forKey: .bannedUntil)
        deletedAt = try c.decodeIfPresent(Date.self, forKey: .deletedAt)
        isAnonymous = try c.decodeIfPresent(Bool.self, forKey: .isAnonymous) ?? false
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id.uuidString.lowercased(), forKey: .id)
        try c.encode(aud, forKey: .aud)
        try c.encode(role, forKey: .role)
        try c.encode(email, forKey: .email)
        try c.encode(phone, forKey: .phone)
        try c.encodeIfPresent(emailConfirmedAt, forKey: .emailConfirmedAt)
        try c.encodeIfPresent(phoneConfirmedAt, forKey: .phoneConfirmedAt)
        try c.encodeIfPresent(confirmedAt, forKey: .confirmedAt)
        try c.encodeIfPresent(confirmationSentAt, forKey: .confirmationSentAt)
        try c.encodeIfPresent(recoverySentAt, forKey: .recoverySentAt)
        try c.encodeIfPresent(newEmail, forKey: .newEmail)
        try c.encodeIfPresent(emailChangeSentAt, forKey: .emailChangeSentAt)
        try c.encodeIfPresent(newPhone, forKey: .newPhone)
        try c.encodeIfPresent(phoneChangeSentAt, forKey: .phoneChangeSentAt)
        try c.encodeIfPresent(reauthenticationSentAt, forKey: .reauthenticationSentAt)
        try c.encodeIfPresent(invitedAt, forKey: .invitedAt)
        try c.encodeIfPresent(lastSignInAt, forKey: .lastSignInAt)
        try c.encode(appMetadata, forKey: .appMetadata)
        try c.encode(userMetadata, forKey: .userMetadata)
        try c.encodeIfPresent(identities, forKey: .identities)
        try c.encodeIfPresent(factors, forKey: .factors)
        try c.encode(createdAt, forKey: .createdAt)
        try c.encode(updatedAt, forKey: .updatedAt)
        try c.encodeIfPresent(bannedUntil, forKey: .bannedUntil)
        try c.encodeIfPresent(deletedAt, forKey: .deletedAt)
        try c.encode(isAnonymous, forKey: .isAnonymous)
    }
}

extension User {
    /// ``phone`` in E.164 with its `+` (`+15551234567`), as apps take numbers in; `nil` when the
    /// user has none.
    public var phoneNumber: String? { E164.withPlus(phone) }

    /// ``newPhone`` in E.164 with its `+`.
    public var newPhoneNumber: String? { newPhone.flatMap(E164.withPlus) }
}

/// Phone numbers as the wire has them (GoTrue stores E.164 without the `+`) and as apps do.
public enum E164 {
    /// `raw` as `+` and 2 to 15 digits, the first not 0 (spaces and a missing `+` forgiven, as
    /// the server does); `nil` when it is no E.164 number.
    public static func normalized(_ raw: String) -> String? {
        var digits = Substring(raw.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: " ", with: ""))
        if digits.hasPrefix("+") { digits = digits.dropFirst() }
        guard (2...15).contains(digits.utf8.count), digits.first != "0",
            digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        return "+" + digits
    }

    /// `number` with a leading `+`; `nil` for an empty string.
    public static func withPlus(_ number: String) -> String? {
        let digits = number.hasPrefix("+") ? String(number.dropFirst()) : number
        return digits.isEmpty ? nil : "+" + digits
    }
}
