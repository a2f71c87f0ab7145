import Foundation

/// `POST /signup`.
public struct SignUpRequest: Codable, Sendable, Equatable {
    /// The new account's email address (`email`).
    public var email: String?
    /// The new account's phone number (`phone`).
    public var phone: String?
    /// The new account's password (`password`).
    public var password: String?
    /// Becomes the user's `user_metadata`.
    public var data: [String: JSONValue]?
    /// Where a phone code goes: `sms` or `whatsapp` (`channel`).
    public var channel: String?
    /// The PKCE challenge for the confirmation link (`code_challenge`).
    public var codeChallenge: String?
    /// How the challenge was made: `s256` or `plain` (`code_challenge_method`).
    public var codeChallengeMethod: String?

    /// Creates a sign-up request; `nil` fields are left out.
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
    /// The account's email address (`email`).
    public var email: String?
    /// The account's phone number (`phone`).
    public var phone: String?
    /// The password (`password`).
    public var password: String?

    /// Creates a password grant.
    public init(email: String? = nil, phone: String? = nil, password: String? = nil) {
        self.email = email
        self.phone = phone
        self.password = password
    }
}

/// `POST /token?grant_type=refresh_token`.
public struct RefreshTokenGrantRequest: Codable, Sendable, Equatable {
    /// The refresh token to exchange for a new session (`refresh_token`).
    public var refreshToken: String?

    /// Creates a refresh-token grant.
    public init(refreshToken: String?) { self.refreshToken = refreshToken }

    enum CodingKeys: String, CodingKey {
        case refreshToken = "refresh_token"
    }
}

/// `POST /otp`: send a one-time code (and link) to an address.
public struct OTPRequest: Codable, Sendable, Equatable {
    /// The address to send the code to (`email`).
    public var email: String?
    /// The phone number to send the code to (`phone`).
    public var phone: String?
    /// Whether an unknown address creates a user; GoTrue's default is `true`.
    public var createUser: Bool?
    /// The `user_metadata` of a user this request creates (`data`).
    public var data: [String: JSONValue]?
    /// Where a phone code goes: `sms` or `whatsapp` (`channel`).
    public var channel: String?
    /// The PKCE challenge for the emailed link (`code_challenge`).
    public var codeChallenge: String?
    /// How the challenge was made: `s256` or `plain` (`code_challenge_method`).
    public var codeChallengeMethod: String?
    /// Latchkey extension: `signin` answers `user_not_found` for an unknown address and `signup`
    /// answers `user_already_exists` for a known one, instead of GoTrue's silent behaviour. Only
    /// sent when an app asks to tell the cases apart.
    public var intent: String?

    /// Creates a code request; `nil` fields are left out.
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
    /// What is verified, e.g. `email`, `signup`, `magiclink` or `recovery` (`type`).
    public var type: String?
    /// The address the code was sent to, with ``token`` (`email`).
    public var email: String?
    /// The phone number the code was sent to, with ``token`` (`phone`).
    public var phone: String?
    /// The one-time code the user typed (`token`).
    public var token: String?
    /// The token hash an emailed link carries, sent without an address (`token_hash`).
    public var tokenHash: String?
    /// Where a link sends the user afterwards (`redirect_to`).
    public var redirectTo: String?

    /// Creates a verify request.
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
    /// What to resend: `signup`, `email_change`, `sms` or `phone_change` (`type`).
    public var type: String?
    /// The address to resend to (`email`).
    public var email: String?
    /// The phone number to resend to (`phone`).
    public var phone: String?
    /// The PKCE challenge for the new link (`code_challenge`).
    public var codeChallenge: String?
    /// How the challenge was made: `s256` or `plain` (`code_challenge_method`).
    public var codeChallengeMethod: String?

    /// Creates a resend request.
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
    /// The code from the link's redirect, `?code=…` (`auth_code`).
    public var authCode: String?
    /// The verifier whose challenge went with the request that sent the link (`code_verifier`).
    public var codeVerifier: String?

    /// Creates a PKCE grant.
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
    /// A new email address (`email`).
    public var email: String?
    /// A new phone number (`phone`).
    public var phone: String?
    /// A new password (`password`).
    public var password: String?
    /// The current password, when the server requires it to set a new one (`current_password`).
    public var currentPassword: String?
    /// The reauthentication code, when the server requires it to set a new password (`nonce`).
    public var nonce: String?
    /// Keys to merge into `user_metadata`; a `null` value deletes the key (`data`).
    public var data: [String: JSONValue]?
    /// Keys to merge into `app_metadata`; admins only, others get `not_admin` (`app_metadata`).
    public var appMetadata: [String: JSONValue]?
    /// Where a phone change's code goes: `sms` or `whatsapp` (`channel`).
    public var channel: String?
    /// The PKCE challenge for the email-change links (`code_challenge`).
    public var codeChallenge: String?
    /// How the challenge was made: `s256` or `plain` (`code_challenge_method`).
    public var codeChallengeMethod: String?

    /// Creates an update; `nil` fields are left out and stay unchanged.
    public init(
        email: String? = nil, phone: String? = nil, password: String? = nil, currentPassword: String? = nil,
        nonce: String? = nil, data: [String: JSONValue]? = nil, appMetadata: [String: JSONValue]? = nil, channel: String? = nil,
        codeChallenge: String? = nil, codeChallengeMethod: String? = nil
    ) {
        self.channel = channel
        self.codeChallenge = codeChallenge
        self.codeChallengeMethod = codeChallengeMethod
        self.email = email
        self.phone = phone
        self.password = password
        self.currentPassword = currentPassword
        self.nonce = nonce
        self.data = data
        self.appMetadata = appMetadata
    }

    enum CodingKeys: String, CodingKey {
        case email, phone, password, nonce, data, channel
        case currentPassword = "current_password"
        case appMetadata = "app_metadata"
        case codeChallenge = "code_challenge"
        case codeChallengeMethod = "code_challenge_method"
    }
}

/// GoTrue's answer to the first of two email-change confirmations:
/// `{"msg": "Confirmation link accepted. …", "code": "200"}`, `code` a string.
public struct EmailChangePending: Codable, Sendable, Equatable {
    /// What is left to do (`msg`).
    public var msg: String
    /// `"200"` (`code`).
    public var code: String

    /// Creates the answer.
    public init(msg: String, code: String = "200") {
        self.msg = msg
        self.code = code
    }
}

/// `POST /recover`: ask for a password-reset email.
public struct RecoverRequest: Codable, Sendable, Equatable {
    /// The account's address (`email`).
    public var email: String?
    /// The PKCE challenge for the reset link (`code_challenge`).
    public var codeChallenge: String?
    /// `s256` or `plain` (`code_challenge_method`).
    public var codeChallengeMethod: String?

    /// Creates a request.
    public init(email: String?, codeChallenge: String? = nil, codeChallengeMethod: String? = nil) {
        self.email = email
        self.codeChallenge = codeChallenge
        self.codeChallengeMethod = codeChallengeMethod
    }

    enum CodingKeys: String, CodingKey {
        case email
        case codeChallenge = "code_challenge"
        case codeChallengeMethod = "code_challenge_method"
    }
}

/// `DELETE /user` (a Latchkey extension): the signed-in user deletes their account. `nonce` is the
/// code `GET /reauthenticate` sent, needed when the session signed in more than five minutes ago.
public struct DeleteAccountRequest: Codable, Sendable, Equatable {
    public var nonce: String?

    public init(nonce: String? = nil) {
        self.nonce = nonce
    }
}
