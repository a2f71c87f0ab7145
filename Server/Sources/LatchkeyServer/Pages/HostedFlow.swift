import Foundation
import HTTPTypes
import LatchkeyCore

/// Where a hosted page's sign-in goes: the app's `redirect_to` (on the allow list) and its PKCE
/// challenge, carried from page to page in every form and checked again at every step.
struct HostedFlow: Codable, Sendable, Equatable {
    var redirectTo: String
    var codeChallenge: String
    var codeChallengeMethod: String

    enum CodingKeys: String, CodingKey {
        case redirectTo = "r"
        case codeChallenge = "c"
        case codeChallengeMethod = "m"
    }

    var challenge: PKCEChallenge { PKCEChallenge(challenge: codeChallenge, method: .s256) }

    /// The flow a request names, or the page that says why it cannot go on: a `redirect_to`
    /// off the allow list is never followed (nor silently replaced by the site URL), and a PKCE
    /// challenge (S256) is required, so that only the app that opened the page gets the session.
    /// `consentPage` is the hosted consent page's address: a sign-in may come back to it for one
    /// request (`?authorization_id=`), whatever the allow list says.
    static func read(_ fields: [String: String], redirects: RedirectPolicy, consentPage: String? = nil) throws(PageRefusal)
        -> HostedFlow
    {
        let requested = fields["redirect_to"].flatMap { $0.isEmpty ? nil : $0 }
        let target: String
        if let requested, let consentPage, requested.hasPrefix(consentPage + "?authorization_id="),
            OAuthServer.isAuthorizationID(String(requested.dropFirst(consentPage.count + 18)))
        {
            target = requested
        } else if let requested {
            guard let url = RedirectURL(requested), redirects.isAllowed(url.description) else {
                throw PageRefusal(
                    status: .badRequest, title: "This app cannot sign in here",
                    text: "The address this app asked to return to is not on the server's allow list (GOTRUE_URI_ALLOW_LIST).")
            }
            target = url.description
        } else {
            target = redirects.siteURL
        }
        let challenge: PKCEChallenge?
        do {
            challenge = try PKCEChallenge.parse(challenge: fields["code_challenge"], method: fields["code_challenge_method"])
        } catch {
            challenge = nil
        }
        guard let challenge, challenge.method == .s256 else {
            throw PageRefusal(
                status: .badRequest, title: "Open this page from the app",
                text:
                    "Sign-in pages are opened by an app with a PKCE code challenge (S256), so that only that app receives the session. Start again from the app."
            )
        }
        return HostedFlow(redirectTo: target, codeChallenge: challenge.challenge, codeChallengeMethod: "s256")
    }

    /// The hosted consent page under `externalURL`.
    static func consentPage(externalURL: String) -> String {
        var base = externalURL
        while base.hasSuffix("/") { base.removeLast() }
        return base + "/ui/consent"
    }

    /// The flow as a query string, for links between pages.
    var query: String {
        FormEncoding.encode([
            ("redirect_to", redirectTo), ("code_challenge", codeChallenge), ("code_challenge_method", codeChallengeMethod),
        ])
    }

    /// The flow and the CSRF token as hidden form fields.
    func hiddenFields(csrf: String) -> String {
        let e = EmailComposer.escape
        return [
            ("csrf", csrf), ("redirect_to", redirectTo), ("code_challenge", codeChallenge), ("code_challenge_method", codeChallengeMethod),
        ]
        .map { #"<input type="hidden" name="\#($0.0)" value="\#(e($0.1))">"# }.joined()
    }
}

/// A hosted page that cannot go on: the message page with a status.
struct PageRefusal: Error {
    var status: HTTPResponse.Status
    var title: String
    var text: String
}
