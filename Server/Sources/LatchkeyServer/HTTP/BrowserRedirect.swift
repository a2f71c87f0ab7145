import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore

/// The redirects a browser is answered with (`/verify` links, the provider `/callback`): 303 to a
/// resolved target, with a query or a fragment added, never cached or leaking a referrer.
enum BrowserRedirect {
    /// A 303 to `target` (a resolved redirect: canonical, or the site URL) with `query` added.
    static func redirect(to target: String, query: String) -> Response {
        if let url = RedirectURL(target) { return seeOther(url.appendingQuery(query).description) }
        // A site URL that `RedirectURL` does not read, as the operator configured it.
        let base = withoutFragment(target)
        return seeOther("\(base)\(base.contains("?") ? "&" : "?")\(query)")
    }

    /// A 303 to `target` (a resolved redirect: canonical, or the site URL) with `fragment` in
    /// place of its own.
    static func redirect(to target: String, fragment: String) -> Response {
        if let url = RedirectURL(target) { return seeOther(url.replacingFragment(fragment).description) }
        return seeOther("\(withoutFragment(target))#\(fragment)")
    }

    /// `target` without its fragment.
    static func withoutFragment(_ target: String) -> String {
        target.split(separator: "#", maxSplits: 1).first.map(String.init) ?? target
    }

    /// A 303 to `location`.
    static func seeOther(_ location: String) -> Response {
        Response(
            status: .seeOther,
            headers: [.location: location, .cacheControl: "no-store", .referrerPolicy: "no-referrer"])
    }
}
