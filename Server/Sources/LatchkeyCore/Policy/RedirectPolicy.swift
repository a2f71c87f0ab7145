/// Where links may send a user after verification: the site URL, or a URL matching the allow
/// list (GoTrue's `GOTRUE_URI_ALLOW_LIST`; `RedirectPattern` says how entries match).
///
/// Both sides are parsed by `RedirectURL`, whose strict rules make Foundation and a browser read
/// the same host, and compared as parsed: scheme, case-folded host and port. An accepted redirect
/// is answered with the URL rebuilt from its parts, never the text that was sent.
public struct RedirectPolicy: Sendable {
    public let siteURL: String
    public let allowList: [String]
    let site: RedirectURL?
    let patterns: [RedirectPattern]

    public init(siteURL: String, allowList: [String]) {
        self.siteURL = siteURL
        self.allowList = allowList
        self.site = RedirectURL(siteURL)
        self.patterns = allowList.compactMap(RedirectPattern.init)
    }

    /// The canonical form of `requested` when it is allowed, else the site URL.
    public func resolve(_ requested: String?) -> String {
        if let requested, let url = RedirectURL(requested), isAllowed(url) { return url.description }
        return siteURL
    }

    /// Whether `url` may be redirected to.
    public func isAllowed(_ url: String) -> Bool {
        RedirectURL(url).map(isAllowed) ?? false
    }

    func isAllowed(_ url: RedirectURL) -> Bool {
        if let site, isSameSite(url, site) { return true }
        return patterns.contains { $0.matches(url) }
    }

    /// Scheme, host and port as the site's; any port when the site is on loopback, as GoTrue
    /// (RFC 8252 §7.3: a native app listens on a port it picks).
    func isSameSite(_ url: RedirectURL, _ site: RedirectURL) -> Bool {
        guard url.scheme == site.scheme, let host = url.hostKey, host == site.hostKey else { return false }
        return url.port == site.port || site.isLoopback
    }
}
