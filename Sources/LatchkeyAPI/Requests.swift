import Foundation

/// `POST /signup`.
public struct SignUpRequest: Codable, Sendable, Equatable {
    public var email: String?
    public var phone: String?
    public var password: String?
    /// Becomes the user's `user_metadata`.
    public var data: [String: JSONValue]?
    public var channel: String?
    public var codeChallenge: String?
    public var codeChallengeMethod: String?

    public init(
        email: String? = nil, phone: String? = nil, password: String? = nil, data: [String: JSONValue]? = nil,
        channel: String? = nil, codeChallenge: String? = nil, codeChallengeMethod: String? = nil
    ) {
        self.email = email
        self.phone = phone
        self.password = password
        self.data = data
        self.channel = channel
        self.codeChallenge = codeChallenge
        self.codeChallengeMethod = codeChallengeMethod
    }

    enum CodingKeys: String, CodingKey {
        case email, phone, password, data, channel
        case codeChallenge = "code_challenge"
        case codeChallengeMethod = "code_challenge_method"
    }
}

/// `POST /token?grant_type=password`.
public struct PasswordGrantRequest: Codable, Sendable, Equatable {
    public var email: String?
    public var phone: String?
    public var password: String?

    public init(email: String? = nil, phone: String? = nil, password: String? = nil) {
        self.email = email
        self.phone = phone
        self.password = password
    }
}

/// `POST /token?grant_type=refresh_token`.
public struct RefreshTokenGrantRequest: Codable, Sendable, Equatable {
    public var refreshToken: String?

    public init(refreshToken: String?) { self.refreshToken = refreshToken }

    enum CodingKeys: String, CodingKey {
        case refreshToken = "refresh_token"
    }
}

/// `POST /otp`: send a one-time code (and link) to an address.
public struct OTPRequest: Codable, Sendable, Equatable {
    public var email: String?
    public var phone: String?
    /// Whether an unknown address creates a user; GoTrue's default is `true`.
    public var createUser: Bool?
    public var data: [String: JSONValue]?
    public var channel: String?
    public var codeChallenge: String?
    public var codeChallengeMethod: String?
    /// Latchkey extension: `signin` answers `user_not_found` for an unknown address and `signup`
    /// answers `user_already_exists` for a known one, instead of GoTrue's silent behaviour. Only
    /// sent when an app asks to tell the cases apart.
    public var intent: String?

    public init(
        email: String? = nil, phone: String? = nil, createUser: Bool? = nil, data: [String: JSONValue]? = nil,
        channel: String? = nil, codeChallenge: String? = nil, codeChallengeMethod: String? = nil, intent: String? = nil
    ) {
        self.email = email
        self.phone = phone
        self.createUser = createUser
        self.data = data
        self.channel = channel
        self.codeChallenge = codeChallenge
        self.codeChallengeMethod = codeChallengeMethod
        self.intent = intent
    }

    enum CodingKeys: String, CodingKey {
        case email, phone, data, channel, intent
        case createUser = "create_user"
        case codeChallenge = "code_challenge"
        case codeChallengeMethod = "code_challenge_method"
    }
}

/// `POST /verify`: either `token` with `email` (or `phone`), or `token_hash` alone.
public struct VerifyRequest: Codable, Sendable, Equatable {
    public var type: String?
    public var email: String?
    public var phone: String?
    public var token: String?
    public var tokenHash: String?
    public var redirectTo: String?

    public init(
        type: String?, email: String? = nil, phone: String? = nil, token: String? = nil, tokenHash: String? = nil,
        redirectTo: String? = nil
    ) {
        self.type = type
        self.email = email
        self.phone = phone
        self.token = token
        self.tokenHash = tokenHash
        self.redirectTo = redirectTo
    }

    enum CodingKeys: String, CodingKey {
        case type, email, phone, token
        case tokenHash = "token_hash"
        case redirectTo = "redirect_to"
    }
}

/// `POST /resend`.
public struct ResendRequest: Codable, Sendable, Equatable {
    public var type: String?
    public var email: String?
    public var phone: String?
    public var codeChallenge: String?
    public var codeChallengeMethod: String?

    public init(
        type: String?, email: String? = nil, phone: String? = nil, codeChallenge: String? = nil,
        codeChallengeMethod: String? = nil
    ) {
        self.type = type
        self.email = email
        self.phone = phone
        self.codeChallenge = codeChallenge
        self.codeChallengeMethod = codeChallengeMethod
    }

    enum CodingKeys: String, CodingKey {
        case type, email, phone
        case codeChallenge = "code_challenge"
        case codeChallengeMethod = "code_challenge_method"
    }
}

/// `POST /token?grant_type=pkce`: the code a link delivered, and the verifier only the device
/// that asked for the link holds.
public struct PKCEGrantRequest: Codable, Sendable, Equatable {
    public var authCode: String?
    public var codeVerifier: String?

    public init(authCode: String?, codeVerifier: String?) {
        self.authCode = authCode
        self.codeVerifier = codeVerifier
    }

    enum CodingKeys: String, CodingKey {
        case authCode = "auth_code"
        case codeVerifier = "code_verifier"
    }
}

/// `PUT /user`. A `null` value in `data` deletes that key from `user_metadata`.
public struct UpdateUserRequest: Codable, Sendable, Equatable {
    public var email: String?
    public var phone: String?
    public var password: String?
    public var currentPassword: String?
    public var nonce: String?
    public var data: [String: JSONValue]?
    public var appMetadata: [String: JSONValue]?

    public init(
        email: String? = nil, phone: String? = nil, password: String? = nil, currentPassword: String? = nil,
        nonce: String? = nil, data: [String: JSONValue]? = nil, appMetadata: [String: JSONValue]? = nil
    ) {
        self.email = email
        self.phone = phone
        self.password = password
        self.currentPassword = currentPassword
        self.nonce = nonce
        self.data = data
        self.appMetadata = appMetadata
    }

    enum CodingKeys: String, CodingKey {
        case email, phone, password, nonce, data
        case currentPassword = "current_password"
        case appMetadata = "app_metadata"
    }
}
