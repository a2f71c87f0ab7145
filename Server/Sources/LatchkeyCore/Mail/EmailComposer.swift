import Foundation
import LatchkeyAPI

/// Writes the messages Latchkey sends through a ``MessageRenderer``, with the links they carry.
public struct EmailComposer: Sendable {
    public let appName: String
    public let externalURL: String
    public let siteURL: String
    public let templates: any MessageRenderer
    /// How long codes and links stay valid, as messages say it.
    public let validMinutes: Int

    public init(appName: String, externalURL: String, siteURL: String, templates: any MessageRenderer, validMinutes: Int) {
        self.appName = appName
        self.externalURL = externalURL
        self.siteURL = siteURL
        self.templates = templates
        self.validMinutes = validMinutes
    }

    /// The link a message carries: `GET /verify` with the link secret.
    public func link(secret: String, type: String, redirectTo: String) -> String {
        var components = URLComponents(string: externalURL.hasSuffix("/") ? externalURL + "verify" : externalURL + "/verify")
        components?.queryItems = [
            URLQueryItem(name: "token", value: secret), URLQueryItem(name: "type", value: type),
            URLQueryItem(name: "redirect_to", value: redirectTo),
        ]
        return components?.string ?? externalURL
    }

    /// An email of `kind` to `address` about `user`; with `linkSecret`, a link of `linkType`
    /// (by default the kind's own verification type).
    public func email(
        _ kind: MessageKind, to address: String, user: UserRecord?, code: String? = nil, linkSecret: String? = nil,
        linkType: String? = nil, redirectTo: String? = nil, newEmail: String? = nil, oldEmail: String? = nil
    ) -> EmailMessage {
        let target = redirectTo ?? siteURL
        let link = linkSecret.map { self.link(secret: $0, type: linkType ?? kind.verificationType, redirectTo: target) }
        let values = TemplateValues(
            appName: appName, recipient: address, code: code, link: link, tokenHash: linkSecret, siteURL: siteURL,
            redirectTo: target, newEmail: newEmail, oldEmail: oldEmail, userEmail: user?.email ?? address,
            userPhone: user?.phone, userMetadata: user?.userMetadata ?? [:], expiresInMinutes: validMinutes)
        let rendered = templates.render(kind, values)
        return EmailMessage(to: [address], subject: rendered.subject, text: rendered.text, html: rendered.html)
    }

    /// The text of an SMS carrying `code`.
    public func sms(to phone: String, user: UserRecord?, code: String, validMinutes: Int) -> String {
        let values = TemplateValues(
            appName: appName, recipient: phone, code: code, siteURL: siteURL, userEmail: user?.email, userPhone: phone,
            userMetadata: user?.userMetadata ?? [:], expiresInMinutes: validMinutes)
        return templates.render(.sms, values).text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// HTML-escapes text.
    public static func escape(_ text: String) -> String {
        var result = ""
        for char in text.unicodeScalars {
            switch char {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.unicodeScalars.append(char)
            }
        }
        return result
    }
}
