import Foundation
import LatchkeyAPI

/// The scopes of Latchkey's OAuth server (GoTrue's `SupportedOAuthScopes`) and the claims each
/// opens, in the `id_token` and at `/oauth/userinfo`: `openid` the subject, `email` the address
/// and whether it is confirmed, `phone` the number likewise, `profile` the name, picture and
/// user name from the user's metadata.
public enum OAuthScopes {
    public static let openID = "openid"
    public static let email = "email"
    public static let profile = "profile"
    public static let phone = "phone"
    public static let offlineAccess = "offline_access"
    /// Every scope a client may ask for.
    public static let supported = [openID, profile, email, phone, offlineAccess]

    /// The scopes of a space-separated list, in order, each once.
    public static func parse(_ text: String) -> [String] {
        var seen = Set<String>()
        return text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init).filter { seen.insert($0).inserted }
    }

    /// The user's claims that `scopes` open, as `/oauth/userinfo` answers them (GoTrue's names:
    /// `phone`, `phone_verified`; `user_metadata` with `profile`).
    public static func userInfo(_ user: UserRecord, scopes: [String]?) -> [String: JSONValue] {
        var claims: [String: JSONValue] = ["sub": .string(user.id.lowercasedString)]
        // A token of the app's own session (no client) answers the subject alone, as GoTrue's.
        guard let scopes else { return claims }
        if scopes.contains(email), let address = user.email, !address.isEmpty {
            claims["email"] = .string(address)
            claims["email_verified"] = .bool(user.isEmailConfirmed)
        }
        if scopes.contains(phone), let number = user.phone, !number.isEmpty {
            claims["phone"] = .string(number)
            claims["phone_verified"] = .bool(user.phoneConfirmedAt != nil)
        }
        if scopes.contains(profile) {
            claims.merge(profileClaims(user)) { $1 }
            claims["user_metadata"] = .object(user.userMetadata)
        }
        return claims
    }

    /// The user's claims that `scopes` open in an `id_token` (OpenID Connect's names:
    /// `phone_number`, `phone_number_verified`).
    public static func idTokenClaims(_ user: UserRecord, scopes: [String]) -> [String: JSONValue] {
        var claims: [String: JSONValue] = [:]
        if scopes.contains(email) {
            claims["email"] = .string(user.email ?? "")
            claims["email_verified"] = .bool(user.isEmailConfirmed)
        }
        if scopes.contains(phone) {
            claims["phone_number"] = .string(user.phone ?? "")
            claims["phone_number_verified"] = .bool(user.phoneConfirmedAt != nil)
        }
        if scopes.contains(profile) { claims.merge(profileClaims(user)) { $1 } }
        return claims
    }

    /// `name` (else the email address), `picture` (else `avatar_url`), `preferred_username`
    /// (else `username`), `updated_at`, as GoTrue reads them from the user's metadata.
    static func profileClaims(_ user: UserRecord) -> [String: JSONValue] {
        var claims: [String: JSONValue] = [:]
        let metadata = user.userMetadata
        func text(_ keys: String...) -> String? {
            keys.lazy.compactMap { metadata[$0]?.stringValue }.first { !$0.isEmpty }
        }
        if let name = text("name") ?? user.email.flatMap({ $0.isEmpty ? nil : $0 }) { claims["name"] = .string(name) }
        if let picture = text("picture", "avatar_url") { claims["picture"] = .string(picture) }
        if let username = text("preferred_username", "username") { claims["preferred_username"] = .string(username) }
        claims["updated_at"] = .number(Double(Int(user.updatedAt.timeIntervalSince1970)))
        return claims
    }

    /// `GET /user` as an OAuth client's token reads it: the address with `email`, the number
    /// with `phone`, the metadata with `profile`; never the identities nor the factors.
    public static func scoped(_ user: User, scopes: [String]) -> User {
        var scoped = user
        scoped.identities = nil
        scoped.factors = nil
        if !scopes.contains(email) {
            scoped.email = ""
            scoped.emailConfirmedAt = nil
            scoped.newEmail = nil
            scoped.emailChangeSentAt = nil
            scoped.confirmationSentAt = nil
            scoped.recoverySentAt = nil
        }
        if !scopes.contains(phone) {
            scoped.phone = ""
            scoped.phoneConfirmedAt = nil
            scoped.newPhone = nil
            scoped.phoneChangeSentAt = nil
        }
        if scopes.contains(email) != scopes.contains(phone) {
            scoped.confirmedAt = scopes.contains(email) ? user.emailConfirmedAt : user.phoneConfirmedAt
        } else if !scopes.contains(email) {
            scoped.confirmedAt = nil
        }
        if !scopes.contains(profile) { scoped.userMetadata = [:] }
        scoped.reauthenticationSentAt = nil
        return scoped
    }
}
