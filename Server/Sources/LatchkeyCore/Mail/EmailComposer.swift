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
    /// Whether messages carry what the `send-email` hook gets (``EmailMessage/hookPayload``).
    public let forHook: Bool

    public init(
        appName: String, externalURL: String, siteURL: String, templates: any MessageRenderer, validMinutes: Int, forHook: Bool = false
    ) {
        self.appName = appName
        self.externalURL = externalURL
        self.siteURL = siteURL
        self.templates = templates
        self.validMinutes = validMinutes
        self.forHook = forHook
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
        linkType: String? = nil, redirectTo: String? = nil, newEmail: String? = nil, oldEmail: String? = nil,
        provider: String? = nil
    ) -> EmailMessage {
        let target = redirectTo ?? siteURL
        let link = linkSecret.map { self.link(secret: $0, type: linkType ?? kind.verificationType, redirectTo: target) }
        let values = TemplateValues(
            appName: appName, recipient: address, code: code, link: link, tokenHash: linkSecret, siteURL: siteURL,
            redirectTo: target, newEmail: newEmail, oldEmail: oldEmail, provider: provider, userEmail: user?.email ?? address,
            userPhone: user?.phone, userMetadata: user?.userMetadata ?? [:], expiresInMinutes: validMinutes)
        let rendered = templates.render(kind, values)
        var message = EmailMessage(to: [address], subject: rendered.subject, text: rendered.text, html: rendered.html)
        if forHook {
            message.hookPayload = hookPayload(
                kind, to: address, user: user, code: code, linkSecret: linkSecret, redirectTo: target, oldEmail: oldEmail,
                provider: provider)
        }
        return message
    }

    /// GoTrue's `send-email` payload: the user as the API shows it, and `email_data` with the
    /// code (`token`), the link's secret (`token_hash`, what `/verify` takes), the kind
    /// (`email_action_type`), where the link returns and the API's URL (`site_url`, as GoTrue
    /// sends it). The message to a new address in an email change carries its code in `token_new`
    /// and `token_hash_new`, as GoTrue's does. `recipient` (Latchkey's) names the address.
    func hookPayload(
        _ kind: MessageKind, to address: String, user: UserRecord?, code: String?, linkSecret: String?, redirectTo: String,
        oldEmail: String?, provider: String? = nil
    ) -> [String: JSONValue] {
        let toNewAddress = kind == .emailChange
        var data: [String: JSONValue] = [
            "email_action_type": .string(kind.hookActionType), "redirect_to": .string(redirectTo), "site_url": .string(externalURL),
            "token": .string(toNewAddress ? "" : code ?? ""), "token_hash": .string(toNewAddress ? "" : linkSecret ?? ""),
            "token_new": .string(toNewAddress ? code ?? "" : ""), "token_hash_new": .string(toNewAddress ? linkSecret ?? "" : ""),
            "recipient": .string(address),
        ]
        if let oldEmail { data["old_email"] = .string(oldEmail) }
        if let provider { data["provider"] = .string(provider) }
        let wired = user.map { Hooks.json($0.wire(identities: [])) } ?? .object(["email": .string(address)])
        return ["user": wired, "email_data": .object(data)]
    }

    /// The text of an SMS carrying `code`.
    public func sms(to phone: String, user: UserRecord?, code: String, validMinutes: Int) -> String {
        let values = TemplateValues(
            appName: appName, recipient: phone, code: code, siteURL: siteURL, userEmail: user?.email, userPhone: phone,
            userMetadata: user?.userMetadata ?? [:], expiresInMinutes: validMinutes)
        return templates.render(.sms, values).text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A phone factor's code, by SMS or WhatsApp.
    public func mfaSMS(to phone: String, user: UserRecord, code: String, validMinutes: Int) -> String {
        let values = TemplateValues(
            appName: appName, recipient: phone, code: code, siteURL: siteURL, userEmail: user.email, userPhone: phone,
            userMetadata: user.userMetadata, expiresInMinutes: validMinutes)
        return templates.render(.mfaSMS, values).text.trimmingCharacters(in: .whitespacesAndNewlines)
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
