import Foundation
import LatchkeyAPI

/// What a message template can show.
///
/// Names, as templates use them: `application.name`, `code` (also `token`), `link` (also
/// `confirmation_url`), `token_hash`, `email`, `new_email`, `old_email`, `phone`, `site_url`,
/// `redirect_to`, `provider` (an identity notice's provider), `expires_in_minutes`, `data` (the
/// user's metadata; also `user.metadata`) and `user.email`, `user.phone`.
public struct TemplateValues: Sendable {
    public var appName: String
    /// The address or number the message goes to.
    public var recipient: String
    public var code: String?
    public var link: String?
    public var tokenHash: String?
    public var siteURL: String
    public var redirectTo: String?
    public var newEmail: String?
    public var oldEmail: String?
    /// The provider an identity notice is about (`google`, `apple`, …).
    public var provider: String?
    public var userEmail: String?
    public var userPhone: String?
    public var userMetadata: [String: JSONValue]
    public var expiresInMinutes: Int

    public init(
        appName: String, recipient: String, code: String? = nil, link: String? = nil, tokenHash: String? = nil, siteURL: String,
        redirectTo: String? = nil, newEmail: String? = nil, oldEmail: String? = nil, provider: String? = nil,
        userEmail: String? = nil, userPhone: String? = nil, userMetadata: [String: JSONValue] = [:], expiresInMinutes: Int = 10
    ) {
        self.provider = provider
        self.appName = appName
        self.recipient = recipient
        self.code = code
        self.link = link
        self.tokenHash = tokenHash
        self.siteURL = siteURL
        self.redirectTo = redirectTo
        self.newEmail = newEmail
        self.oldEmail = oldEmail
        self.userEmail = userEmail
        self.userPhone = userPhone
        self.userMetadata = userMetadata
        self.expiresInMinutes = expiresInMinutes
    }

    /// The values as the nested dictionary a Mustache template renders.
    /// The values as a template engine reads them.
    public var context: [String: Any] {
        var values: [String: Any] = [
            "application": ["name": appName], "app_name": appName, "site_url": siteURL, "expires_in_minutes": expiresInMinutes,
            "data": Self.plain(.object(userMetadata)),
            "user": ["email": userEmail ?? "", "phone": userPhone ?? "", "metadata": Self.plain(.object(userMetadata))],
        ]
        let optional: [String: String?] = [
            "code": code, "token": code, "link": link, "confirmation_url": link, "token_hash": tokenHash, "redirect_to": redirectTo,
            "new_email": newEmail, "old_email": oldEmail, "phone": userPhone, "provider": provider,
        ]
        for (key, value) in optional { if let value { values[key] = value } }
        values["email"] = userEmail ?? recipient
        return values
    }

    /// JSON as plain Swift values, so templates can reach into metadata (`{{ data.name }}`).
    static func plain(_ value: JSONValue) -> Any {
        switch value {
        case .null: return ""
        case .bool(let bool): return bool
        case .number(let number): return number.rounded() == number && abs(number) < 1e15 ? Int(number) as Any : number as Any
        case .string(let string): return string
        case .array(let items): return items.map(plain)
        case .object(let object): return object.mapValues(plain)
        }
    }
}
