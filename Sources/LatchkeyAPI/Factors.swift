import Foundation

/// `POST /factors`: enrol a second factor (GoTrue's `EnrollFactorParams`).
public struct EnrollFactorRequest: Codable, Sendable, Equatable {
    /// `totp`, `phone` or `webauthn` (`factor_type`).
    public var factorType: String?
    /// A name for the factor, unique among the user's factors (`friendly_name`).
    public var friendlyName: String?
    /// The issuer shown in the authenticator app; the site's host when absent (`issuer`, TOTP).
    public var issuer: String?
    /// The number codes go to, E.164 (`phone`, phone factors).
    public var phone: String?

    /// Creates a request.
    public init(factorType: String? = "totp", friendlyName: String? = nil, issuer: String? = nil, phone: String? = nil) {
        self.factorType = factorType
        self.friendlyName = friendlyName
        self.issuer = issuer
        self.phone = phone
    }

    enum CodingKeys: String, CodingKey {
        case issuer, phone
        case factorType = "factor_type"
        case friendlyName = "friendly_name"
    }
}

/// What `POST /factors` answers for a phone factor: its id and the number, as given.
public struct PhoneEnrollment: Codable, Sendable, Equatable {
    /// The factor's id (`id`).
    public var id: UUID
    /// `phone` (`type`).
    public var type: String
    /// The factor's name (`friendly_name`).
    public var friendlyName: String?
    /// The number, as the request gave it (`phone`).
    public var phone: String

    /// Creates an enrolment.
    public init(id: UUID, friendlyName: String?, phone: String) {
        self.id = id
        self.type = "phone"
        self.friendlyName = friendlyName
        self.phone = phone
    }

    enum CodingKeys: String, CodingKey {
        case id, type, phone
        case friendlyName = "friendly_name"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeLowercased(id, forKey: .id)
        try c.encode(type, forKey: .type)
        // Always a string, "" for none, as GoTrue writes it (supabase-py requires it).
        try c.encode(friendlyName ?? "", forKey: .friendlyName)
        try c.encode(phone, forKey: .phone)
    }
}

/// `POST /factors/{id}/challenge`'s body: where a phone factor's code goes.
public struct ChallengeFactorRequest: Codable, Sendable, Equatable {
    /// `sms` (the default) or `whatsapp` (`channel`); other factor types ignore it.
    public var channel: String?
    /// What supabase-js says of the relying party for a WebAuthn factor (`webauthn`): not read.
    public var webauthn: WebAuthnRelyingPartyHint?

    /// Creates a request.
    public init(channel: String? = nil, webauthn: WebAuthnRelyingPartyHint? = nil) {
        self.channel = channel
        self.webauthn = webauthn
    }
}

/// What `POST /factors` answers for a TOTP factor: its id and what the authenticator app needs.
public struct TOTPEnrollment: Codable, Sendable, Equatable {
    /// The secret in the forms an authenticator takes (`totp`).
    public struct Secret: Codable, Sendable, Equatable {
        /// An SVG QR code of `uri`; prefix `data:image/svg+xml;utf-8,` to show it (`qr_code`).
        public var qrCode: String
        /// The base32 secret, to type in by hand (`secret`).
        public var secret: String
        /// The `otpauth://totp/…` URI (`uri`).
        public var uri: String

        /// Creates the secret's forms.
        public init(qrCode: String, secret: String, uri: String) {
            self.qrCode = qrCode
            self.secret = secret
            self.uri = uri
        }

        enum CodingKeys: String, CodingKey {
            case secret, uri
            case qrCode = "qr_code"
        }
    }

    /// The factor's id (`id`).
    public var id: UUID
    /// `totp` (`type`).
    public var type: String
    /// The factor's name (`friendly_name`).
    public var friendlyName: String?
    /// The secret (`totp`).
    public var totp: Secret

    /// Creates an enrolment.
    public init(id: UUID, type: String, friendlyName: String?, totp: Secret) {
        self.id = id
        self.type = type
        self.friendlyName = friendlyName
        self.totp = totp
    }

    enum CodingKeys: String, CodingKey {
        case id, type, totp
        case friendlyName = "friendly_name"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeLowercased(id, forKey: .id)
        try c.encode(type, forKey: .type)
        // Always a string, "" for none, as GoTrue writes it (supabase-py requires it).
        try c.encode(friendlyName ?? "", forKey: .friendlyName)
        try c.encode(totp, forKey: .totp)
    }
}

/// `POST /factors/{id}/challenge`'s answer: the challenge to verify a code against.
public struct FactorChallenge: Codable, Sendable, Equatable {
    /// The challenge's id (`id`).
    public var id: UUID
    /// The factor type (`type`).
    public var type: String
    /// When the challenge expires, in Unix seconds (`expires_at`).
    public var expiresAt: Int
    /// A WebAuthn factor's options for the authenticator (`webauthn`).
    public var webauthn: WebAuthnFactorChallenge?

    /// Creates a challenge.
    public init(id: UUID, type: String, expiresAt: Int, webauthn: WebAuthnFactorChallenge? = nil) {
        self.id = id
        self.type = type
        self.expiresAt = expiresAt
        self.webauthn = webauthn
    }

    enum CodingKeys: String, CodingKey {
        case id, type, webauthn
        case expiresAt = "expires_at"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeLowercased(id, forKey: .id)
        try c.encode(type, forKey: .type)
        try c.encode(expiresAt, forKey: .expiresAt)
        try c.encodeIfPresent(webauthn, forKey: .webauthn)
    }
}

/// `POST /factors/{id}/verify`: the challenge and the code from the authenticator app or the
/// message, or a WebAuthn factor's credential.
public struct VerifyFactorRequest: Codable, Sendable, Equatable {
    /// The challenge's id (`challenge_id`).
    public var challengeID: String?
    /// The code (`code`): TOTP and phone factors.
    public var code: String?
    /// The authenticator's answer (`webauthn`): WebAuthn factors.
    public var webauthn: WebAuthnFactorResponse?

    /// Creates a request.
    public init(challengeID: String?, code: String?, webauthn: WebAuthnFactorResponse? = nil) {
        self.challengeID = challengeID
        self.code = code
        self.webauthn = webauthn
    }

    enum CodingKeys: String, CodingKey {
        case code, webauthn
        case challengeID = "challenge_id"
    }
}

/// `DELETE /factors/{id}`'s answer.
public struct UnenrolledFactor: Codable, Sendable, Equatable {
    /// The removed factor's id (`id`).
    public var id: UUID

    /// Creates the answer.
    public init(id: UUID) { self.id = id }

    enum CodingKeys: String, CodingKey { case id }

    /// `factor_id`: the same id, for supabase-swift before 2.41.1, which reads it there.
    enum CompatibilityKeys: String, CodingKey { case factorID = "factor_id" }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeLowercased(id, forKey: .id)
        var compatibility = encoder.container(keyedBy: CompatibilityKeys.self)
        try compatibility.encode(id.uuidString.lowercased(), forKey: .factorID)
    }
}

/// `POST /recovery-codes`'s answer (Latchkey's): ten single-use codes, shown this once.
public struct RecoveryCodes: Codable, Sendable, Equatable {
    /// The codes, `xxxxx-xxxxx` (`codes`); spaces, dashes and case do not matter when one is typed.
    public var codes: [String]

    /// Creates the answer.
    public init(codes: [String]) { self.codes = codes }
}

/// `GET /recovery-codes`'s answer: how many of the user's codes are left.
public struct RecoveryCodeStatus: Codable, Sendable, Equatable {
    /// Codes not yet used (`remaining`).
    public var remaining: Int
    /// Codes in the set (`total`); 0 when the user never made any.
    public var total: Int

    /// Creates the answer.
    public init(remaining: Int, total: Int) {
        self.remaining = remaining
        self.total = total
    }
}

/// `POST /recovery-codes/verify`: a recovery code in place of the second factor.
public struct VerifyRecoveryCodeRequest: Codable, Sendable, Equatable {
    /// One of the user's recovery codes (`code`).
    public var code: String?

    /// Creates a request.
    public init(code: String?) { self.code = code }
}
