import Foundation

/// Writes the messages Latchkey sends. Every message that proves an address carries both the
/// numeric code and a link, so a user can finish on whichever device they are on.
public struct EmailComposer: Sendable {
    public let appName: String
    public let externalURL: String

    public init(appName: String, externalURL: String) {
        self.appName = appName
        self.externalURL = externalURL
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

    /// Confirms a new address (sign-up, or a first code sign-in).
    public func confirmation(to address: String, code: String, link: String, validMinutes: Int) -> EmailMessage {
        message(
            to: address, subject: "Confirm your email address",
            intro: "Your \(appName) verification code is \(code).", code: code,
            action: "Or confirm your address with this link:", link: link, validMinutes: validMinutes)
    }

    /// Signs in an existing user.
    public func magicLink(to address: String, code: String, link: String, validMinutes: Int) -> EmailMessage {
        message(
            to: address, subject: "Your sign-in code",
            intro: "Your \(appName) sign-in code is \(code).", code: code,
            action: "Or sign in with this link:", link: link, validMinutes: validMinutes)
    }

    /// Lets the user choose a new password.
    public func recovery(to address: String, code: String, link: String, validMinutes: Int) -> EmailMessage {
        message(
            to: address, subject: "Reset your password",
            intro: "Your \(appName) password reset code is \(code).", code: code,
            action: "Or choose a new password with this link:", link: link, validMinutes: validMinutes)
    }

    /// Tells the user their password changed.
    public func passwordChanged(to address: String) -> EmailMessage {
        let text = """
            The password of your \(appName) account was changed, and every other session was signed out.
            If you did not do this, reset your password at once and contact the app's support.
            """
        return EmailMessage(
            to: [address], subject: "Your password was changed", text: text,
            html: "<p>\(Self.escape(text).replacingOccurrences(of: "\n", with: "<br>"))</p>")
    }

    /// Tells the owner of an address that someone tried to sign up with it again.
    public func existingAccount(to address: String) -> EmailMessage {
        let text = """
            Someone tried to create a new \(appName) account with this address, which already has one.
            If it was you, sign in instead. If it was not, you can ignore this message: nothing changed.
            """
        return EmailMessage(
            to: [address], subject: "You already have an account", text: text,
            html: "<p>\(Self.escape(text).replacingOccurrences(of: "\n", with: "<br>"))</p>")
    }

    func message(to address: String, subject: String, intro: String, code: String, action: String, link: String, validMinutes: Int)
        -> EmailMessage
    {
        let text = """
            \(intro)

            \(action)
            \(link)

            The code and the link work once and expire in \(validMinutes) minutes. If you did not ask for this, ignore this message.
            """
        let html = """
            <!doctype html><html><body style="font-family: sans-serif">
            <p>\(Self.escape(intro.replacingOccurrences(of: code, with: "")))</p>
            <p style="font-size: 28px; letter-spacing: 4px"><strong>\(Self.escape(code))</strong></p>
            <p>\(Self.escape(action))</p>
            <p><a href="\(Self.escape(link))">\(Self.escape(subject))</a></p>
            <p style="color: #666">The code and the link work once and expire in \(validMinutes) minutes. If you did not ask for this, ignore this message.</p>
            </body></html>
            """
        return EmailMessage(to: [address], subject: subject, text: text, html: html)
    }

    /// HTML-escapes text.
    public static func escape(_ text: String) -> String {
        var result = ""
        for char in text {
            switch char {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(char)
            }
        }
        return result
    }
}
