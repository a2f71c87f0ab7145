import Foundation

/// What `POST /factors` answers for a WebAuthn factor (a security key or a passkey as a second
/// factor): its id. The key itself is registered by the factor's first challenge and verification.
public struct WebAuthnEnrollment: Codable, Sendable, Equatable {
    /// The factor's id (`id`).
    public var id: UUID
    /// `webauthn` (`type`).
    public var type: String
    /// The factor's name (`friendly_name`).
    public var friendlyName: String?

    /// Creates an enrolment.
    public init(id: UUID, friendlyName: String?) {
        self.id = id
        self.type = "webauthn"
        self.friendlyName = friendlyName
    }

    enum CodingKeys: String, CodingKey {
        case id, type
        case friendlyName = "friendly_name"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeLowercased(id, forKey: .id)
        try c.encode(type, forKey: .type)
        // Always a string, "" for none, as GoTrue writes it.
        try c.encode(friendlyName ?? "", forKey: .friendlyName)
    }
}

/// A WebAuthn factor's challenge (`webauthn` in `POST /factors/{id}/challenge`'s answer): the
/// options for `navigator.credentials.create()` (a factor not yet verified: `create`) or `get()`
/// (`request`), as GoTrue sends them.
public struct WebAuthnFactorChallenge: Codable, Sendable, Equatable {
    /// `create` or `request` (`type`).
    public var type: String
    /// `{"publicKey": …}`: the creation or request options, binary fields base64url
    /// (`credential_options`).
    public var credentialOptions: JSONValue

    /// Creates the challenge's options.
    public init(type: String, credentialOptions: JSONValue) {
        self.type = type
        self.credentialOptions = credentialOptions
    }

    enum CodingKeys: String, CodingKey {
        case type
        case credentialOptions = "credential_options"
    }
}

/// `webauthn` in `POST /factors/{id}/challenge`: what supabase-js sends about the relying party.
/// Latchkey reads it for its shape only: the relying party is the server's (`webauthn-rp-id`,
/// `webauthn-rp-origins`), as on GoTrue.
public struct WebAuthnRelyingPartyHint: Codable, Sendable, Equatable {
    /// The page's relying party id, as the client guessed it (`rpId`).
    public var rpId: String?
    /// The page's origins (`rpOrigins`).
    public var rpOrigins: [String]?

    /// Creates the hint.
    public init(rpId: String? = nil, rpOrigins: [String]? = nil) {
        self.rpId = rpId
        self.rpOrigins = rpOrigins
    }
}

/// `webauthn` in `POST /factors/{id}/verify`: the authenticator's answer to the challenge.
/// supabase-js also sends `rpId` and `rpOrigins`, read for their shape only
/// (``WebAuthnRelyingPartyHint``).
public struct WebAuthnFactorResponse: Codable, Sendable, Equatable {
    /// `create` (the first verification, registering the key) or `request` (`type`).
    public var type: String?
    /// The `PublicKeyCredential` as JSON (`credential_response`).
    public var credentialResponse: PasskeyCredential?
    /// supabase-js's relying party id (`rpId`), not read.
    public var rpId: String?
    /// supabase-js's origins (`rpOrigins`), not read.
    public var rpOrigins: [String]?

    /// Creates the answer.
    public init(type: String?, credentialResponse: PasskeyCredential?, rpId: String? = nil, rpOrigins: [String]? = nil) {
        self.type = type
        self.credentialResponse = credentialResponse
        self.rpId = rpId
        self.rpOrigins = rpOrigins
    }

    enum CodingKeys: String, CodingKey {
        case type, rpId, rpOrigins
        case credentialResponse = "credential_response"
    }
}
