import Foundation

/// `POST /invite`: an operator invites an address (GoTrue's `InviteParams`).
public struct InviteRequest: Codable, Sendable, Equatable {
    /// The address to invite (`email`).
    public var email: String?
    /// The new user's metadata (`data`).
    public var data: [String: JSONValue]?

    /// Creates a request.
    public init(email: String?, data: [String: JSONValue]? = nil) {
        self.email = email
        self.data = data
    }
}

/// `POST /admin/generate_link`: a link and code made for an operator to deliver, with no email
/// sent (GoTrue's `GenerateLinkParams`).
public struct GenerateLinkRequest: Codable, Sendable, Equatable {
    /// `signup`, `invite`, `magiclink`, `recovery`, `email_change_current` or
    /// `email_change_new` (`type`).
    public var type: String?
    /// The user's address (`email`).
    public var email: String?
    /// The address to move to, for the email-change types (`new_email`).
    public var newEmail: String?
    /// The new user's password, for `signup` (`password`).
    public var password: String?
    /// The new user's metadata (`data`).
    public var data: [String: JSONValue]?
    /// Where the link sends the user (`redirect_to`).
    public var redirectTo: String?

    /// Creates a request.
    public init(
        type: String?, email: String?, newEmail: String? = nil, password: String? = nil, data: [String: JSONValue]? = nil,
        redirectTo: String? = nil
    ) {
        self.type = type
        self.email = email
        self.newEmail = newEmail
        self.password = password
        self.data = data
        self.redirectTo = redirectTo
    }

    enum CodingKeys: String, CodingKey {
        case type, email, password, data
        case newEmail = "new_email"
        case redirectTo = "redirect_to"
    }
}

/// What `POST /admin/generate_link` answers: GoTrue's flattened shape, every user field beside
/// the link's.
public struct GeneratedLink: Codable, Sendable, Equatable {
    /// The user the link is for.
    public var user: User
    /// The link to give the user: `GET /verify` with the token (`action_link`).
    public var actionLink: String
    /// The code the email would carry (`email_otp`).
    public var emailOTP: String
    /// What `/verify` takes as `token_hash` (`hashed_token`).
    public var hashedToken: String
    /// The `type` to verify with (`verification_type`).
    public var verificationType: String
    /// Where the link sends the user (`redirect_to`).
    public var redirectTo: String

    /// Creates a generated link.
    public init(user: User, actionLink: String, emailOTP: String, hashedToken: String, verificationType: String, redirectTo: String) {
        self.user = user
        self.actionLink = actionLink
        self.emailOTP = emailOTP
        self.hashedToken = hashedToken
        self.verificationType = verificationType
        self.redirectTo = redirectTo
    }

    enum CodingKeys: String, CodingKey {
        case actionLink = "action_link"
        case emailOTP = "email_otp"
        case hashedToken = "hashed_token"
        case verificationType = "verification_type"
        case redirectTo = "redirect_to"
    }

    public init(from decoder: any Decoder) throws {
        user = try User(from: decoder)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        actionLink = try c.decode(String.self, forKey: .actionLink)
        emailOTP = try c.decode(String.self, forKey: .emailOTP)
        hashedToken = try c.decode(String.self, forKey: .hashedToken)
        verificationType = try c.decode(String.self, forKey: .verificationType)
        redirectTo = try c.decode(String.self, forKey: .redirectTo)
    }

    public func encode(to encoder: any Encoder) throws {
        try user.encode(to: encoder)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(actionLink, forKey: .actionLink)
        try c.encode(emailOTP, forKey: .emailOTP)
        try c.encode(hashedToken, forKey: .hashedToken)
        try c.encode(verificationType, forKey: .verificationType)
        try c.encode(redirectTo, forKey: .redirectTo)
    }
}
