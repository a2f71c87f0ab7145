import Foundation
import LatchkeyAPI

/// What an id token says about its user, read as GoTrue reads each provider's claims: the
/// subject, the address and whether the provider vouches for it, and the identity data stored
/// with the identity (and copied into the user's metadata).
public struct ProviderUser: Sendable, Equatable {
    public var subject: String
    /// Lowercased.
    public var email: String?
    public var emailVerified: Bool
    /// `identity_data`: `iss`, `sub`, `email`, `email_verified`, `phone_verified`, the profile
    /// claims, `provider_id`, `full_name`, `avatar_url`, `custom_claims`.
    public var identityData: [String: JSONValue]

    public init(subject: String, email: String?, emailVerified: Bool, identityData: [String: JSONValue]) {
        self.subject = subject
        self.email = email
        self.emailVerified = emailVerified
        self.identityData = identityData
    }

    /// Reads `claims` as `kind` says; `nil` when a standard claim has the wrong type (GoTrue
    /// refuses such a token as a bad id token).
    public init?(claims: [String: JSONValue], as kind: IdentityProvider.Claims) {
        guard let subject = claims["sub"]?.stringValue else { return nil }
        let email = claims["email"]?.stringValue.map { $0.lowercased() }.flatMap { $0.isEmpty ? nil : $0 }
        var data: [String: JSONValue] = ["iss": claims["iss"] ?? .null, "sub": .string(subject), "provider_id": .string(subject)]
        var custom: [String: JSONValue] = [:]
        let verified: Bool
        switch kind {
        case .apple:
            // Apple checked the address (or relays to it): verified, whatever `email_verified` says.
            verified = email != nil
            if let privateEmail = claims["is_private_email"] {
                custom["is_private_email"] = .bool(privateEmail.boolValue ?? (privateEmail.stringValue.map(Self.parseBool) ?? false))
            }
            for key in ["auth_time", "transfer_sub"] { if let value = claims[key] { custom[key] = value } }
        case .google:
            guard let flag = Self.flag(claims["email_verified"]), let legacy = Self.flag(claims["verified_email"]) else { return nil }
            verified = email != nil && (flag || legacy)
            for key in ["name", "picture"] { if let value = claims[key]?.stringValue { data[key] = .string(value) } }
            if let name = claims["name"]?.stringValue { data["full_name"] = .string(name) }
            if let picture = claims["picture"]?.stringValue { data["avatar_url"] = .string(picture) }
            if let domain = claims["hd"] { custom["hd"] = domain }
        case .azure, .azureAnyTenant:
            let edov = claims["xms_edov"]
            let vouched = edov?.boolValue == true || edov?.stringValue == "1" || edov?.stringValue == "true"
            verified = email != nil && (vouched || (edov == nil && kind == .azure))
            if let name = claims["name"]?.stringValue { data["full_name"] = .string(name) }
            if let username = claims["preferred_username"]?.stringValue { data["preferred_username"] = .string(username) }
            let dropped: Set<String> = [
                "aud", "iss", "iat", "nbf", "exp", "c_hash", "at_hash", "aio", "nonce", "rh", "uti", "jti", "ver", "sub", "name",
                "preferred_username",
            ]
            for (key, value) in claims where !dropped.contains(key) { custom[key] = value }
        case .standard, .github:
            guard let flag = Self.flag(claims["email_verified"]) else { return nil }
            verified = email != nil && flag
            for key in Self.profileClaims {
                guard let value = claims[key] else { continue }
                guard case .string = value else { return nil }
                data[key] = value
            }
            if let value = claims["custom_claims"] { custom = value.objectValue ?? [:] }
        }
        if let email { data["email"] = .string(email) }
        data["email_verified"] = .bool(verified)
        data["phone_verified"] = false
        if !custom.isEmpty { data["custom_claims"] = .object(custom) }
        self.subject = subject
        self.email = email
        self.emailVerified = verified
        self.identityData = data
    }

    /// The standard profile claims kept as they are (strings).
    static let profileClaims = [
        "name", "family_name", "given_name", "middle_name", "nickname", "preferred_username", "profile", "picture", "website",
        "gender", "birthdate", "zoneinfo", "locale", "phone", "full_name", "avatar_url",
    ]

    /// A boolean claim: absent is `false`; anything but a JSON boolean is `nil` (a bad token).
    static func flag(_ value: JSONValue?) -> Bool? {
        guard let value else { return false }
        return value.boolValue
    }

    /// Go's `strconv.ParseBool`, as GoTrue reads Apple's string flags.
    static func parseBool(_ text: String) -> Bool {
        ["1", "t", "T", "TRUE", "true", "True"].contains(text)
    }
}
