import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import LatchkeyCore

/// The hosted pages' cookies: the CSRF secret every form's token is a MAC of, and sealed state
/// (a signed-in page's session, an operator's console session). Every cookie is `HttpOnly`,
/// `SameSite=Strict`, scoped to `/ui`, and over HTTPS `Secure` and named with the `__Secure-`
/// prefix, so a page on another subdomain (or a plain-HTTP response) cannot plant one the browser
/// would send back.
struct PageSecurity: Sendable {
    let box: SecretBox
    /// `Secure` on cookies: the external URL is HTTPS.
    let secure: Bool
    /// The cookies' path: `/ui` under the external URL's path.
    let path: String

    static let csrfCookie = "lk_csrf"

    init(serverSecret: [UInt8], externalURL: String) {
        box = SecretBox(serverSecret: serverSecret, purpose: "latchkey hosted pages v1")
        let url = URLComponents(string: externalURL)
        secure = url?.scheme?.lowercased() == "https"
        let base = url?.path ?? ""
        path = (base.hasSuffix("/") ? String(base.dropLast()) : base) + "/ui"
    }

    /// The request's cookie `name`.
    static func cookie(_ name: String, in request: Request) -> String? {
        for field in request.headers[values: .cookie] {
            for pair in field.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name {
                    return String(parts[1]).trimmingCharacters(in: .whitespaces)
                }
            }
        }
        return nil
    }

    /// The name cookie `name` has on the wire: `__Secure-name` over HTTPS.
    func wireName(_ name: String) -> String { secure ? "__Secure-" + name : name }

    /// A `Set-Cookie` value for `name`; `maxAge` 0 deletes it.
    func setCookie(_ name: String, _ value: String, maxAge: Int) -> String {
        "\(wireName(name))=\(value); Path=\(path); Max-Age=\(maxAge); HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    /// The form token for this browser, and the cookie to set when it has no CSRF secret yet.
    func csrf(for request: Request) -> (token: String, cookie: String?) {
        if let secret = Self.cookie(wireName(Self.csrfCookie), in: request), Base64URL.decode(secret)?.count == 32 {
            return (token(for: secret), nil)
        }
        let secret = Base64URL.encode(SecureRandom.bytes(32))
        return (token(for: secret), setCookie(Self.csrfCookie, secret, maxAge: 86400))
    }

    func token(for secret: String) -> String { box.mac(Array("csrf:\(secret)".utf8)) }

    /// Refuses a state-changing request that is not this site's own form: a token that is not
    /// the MAC of the browser's CSRF cookie, or a browser saying the request is cross-site.
    func checkCSRF(_ request: Request, token: String?) throws(PageRefusal) {
        let refusal = PageRefusal(
            status: .forbidden, title: "This form has expired",
            text: "The page was open too long or came from another site. Go back, reload the page and try again.")
        if let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!], site != "same-origin", site != "none" { throw refusal }
        guard let secret = Self.cookie(wireName(Self.csrfCookie), in: request), let token,
            ConstantTime.equal(Array(token.utf8), Array(self.token(for: secret).utf8))
        else { throw refusal }
    }

    /// `value` sealed for the cookie `name`, good until `expiresAt`.
    func seal<T: Encodable>(_ value: T, name: String) throws -> String {
        try box.seal(Array(try JSONEncoder().encode(value)), context: "cookie:\(name)")
    }

    /// The sealed value of the request's cookie `name`, when it opens and decodes.
    func open<T: Decodable>(_ type: T.Type, cookie name: String, in request: Request) -> T? {
        guard let sealed = Self.cookie(wireName(name), in: request), let bytes = try? box.open(sealed, context: "cookie:\(name)") else {
            return nil
        }
        return try? JSONDecoder().decode(T.self, from: Data(bytes))
    }
}
