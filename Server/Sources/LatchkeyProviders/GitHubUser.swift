import Foundation
import LatchkeyAPI
import LatchkeyCore

/// A GitHub user as an identity: `GET /user` for the profile, `GET /user/emails` for the address.
/// Only the **primary** address counts, and only as verified when GitHub says it is (GoTrue also
/// matches other verified addresses; Latchkey links by the one the user chose).
enum GitHubUser {
    static func read(profile: [String: JSONValue], emails: [JSONValue], api: String) throws -> ProviderUser {
        guard let id = profile["id"]?.numberValue.map({ String(Int64($0)) }) ?? profile["id"]?.stringValue, !id.isEmpty else {
            throw ProviderExchangeError("GitHub's user has no id")
        }
        let primary = emails.compactMap(\.objectValue).first { $0["primary"]?.boolValue == true }
        let email = primary?["email"]?.stringValue?.lowercased().nilIfEmpty
        let verified = email != nil && primary?["verified"]?.boolValue == true
        var data: [String: JSONValue] = [
            "iss": .string(api), "sub": .string(id), "provider_id": .string(id), "email_verified": .bool(verified), "phone_verified": false,
        ]
        if let email { data["email"] = .string(email) }
        if let name = profile["name"]?.stringValue?.nilIfEmpty {
            data["name"] = .string(name)
            data["full_name"] = .string(name)
        }
        if let login = profile["login"]?.stringValue?.nilIfEmpty {
            data["user_name"] = .string(login)
            data["preferred_username"] = .string(login)
        }
        if let avatar = profile["avatar_url"]?.stringValue?.nilIfEmpty { data["avatar_url"] = .string(avatar) }
        return ProviderUser(subject: id, email: email, emailVerified: verified, identityData: data)
    }
}

extension String {
    fileprivate var nilIfEmpty: String? { isEmpty ? nil : self }
}
