import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import LatchkeyCore

/// The cookie that binds a redirect flow to the browser that started it: a random value set at
/// `GET /authorize` (or when a link ticket is opened), whose hash the flow's state carries and
/// `/callback` requires. A browser keeps one value for all its flows, so two tabs both finish.
///
/// `HttpOnly`. Over HTTPS it is `__Host-lk_oauth` (so no sibling subdomain can plant a value of
/// its choosing in the browser: the prefix forbids a `Domain` and requires `Path=/` and `Secure`),
/// with `SameSite=None`, so Apple's `form_post` (a cross-site POST) carries it; the binding does not
/// rest on `SameSite`: a callback carrying another browser's state fails whatever cookie it brings.
/// Over plain HTTP (development) it is `lk_oauth`, scoped to the server's path, `SameSite=Lax`.
struct BrowserBinding: Sendable {
    let name: String
    let attributes: String

    init(externalURL: String, lifetime: Int) {
        let url = URLComponents(string: externalURL)
        let secure = url?.scheme?.lowercased() == "https"
        let base = url?.path ?? ""
        let path = base.hasSuffix("/") ? base : base + "/"
        name = secure ? "__Host-lk_oauth" : "lk_oauth"
        attributes =
            "Path=\(secure ? "/" : path); Max-Age=\(max(lifetime, 300)); HttpOnly" + (secure ? "; Secure; SameSite=None" : "; SameSite=Lax")
    }

    /// The request's binding value, when it has a well-formed one.
    func value(in request: Request) -> String? {
        guard let value = PageSecurity.cookie(name, in: request), Base64URL.decode(value)?.count == 32 else { return nil }
        return value
    }

    /// The request's binding value, or a new one; and the `Set-Cookie` that (re)sets it.
    func binding(for request: Request) -> (value: String, setCookie: String) {
        let value = value(in: request) ?? Base64URL.encode(SecureRandom.bytes(32))
        return (value, "\(name)=\(value); \(attributes)")
    }
}
