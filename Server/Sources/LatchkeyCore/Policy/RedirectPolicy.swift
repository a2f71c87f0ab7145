import Foundation

/// Where links may send a user after verification: the site URL, or a URL matching the allow
/// list (GoTrue's `GOTRUE_URI_ALLOW_LIST`: `*` matches within one path segment or host label,
/// `**` matches anything).
public struct RedirectPolicy: Sendable {
    public let siteURL: String
    public let allowList: [String]

    public init(siteURL: String, allowList: [String]) {
        self.siteURL = siteURL
        self.allowList = allowList
    }

    /// `requested` when it is allowed, else the site URL.
    public func resolve(_ requested: String?) -> String {
        guard let requested, !requested.isEmpty, requested.utf8.count <= 2048 else { return siteURL }
        return isAllowed(requested) ? requested : siteURL
    }

    /// Whether `url` may be redirected to.
    public func isAllowed(_ url: String) -> Bool {
        guard let components = URLComponents(string: url), components.scheme != nil else { return false }
        if let scheme = components.scheme?.lowercased(), scheme == "javascript" || scheme == "data" { return false }
        if sameOrigin(url, siteURL) { return true }
        for pattern in allowList where matches(pattern: pattern, url) { return true }
        return false
    }

    func sameOrigin(_ a: String, _ b: String) -> Bool {
        guard let ua = URLComponents(string: a), let ub = URLComponents(string: b) else { return false }
        return ua.scheme?.lowercased() == ub.scheme?.lowercased() && ua.host?.lowercased() == ub.host?.lowercased()
            && ua.port == ub.port
    }

    func matches(pattern: String, _ url: String) -> Bool {
        if pattern == url { return true }
        if !pattern.contains("*") {
            // A plain entry allows the URL itself and anything below it.
            return url.hasPrefix(pattern.hasSuffix("/") ? pattern : pattern + "/") || url == pattern
        }
        var regex = "^"
        var index = pattern.startIndex
        while index < pattern.endIndex {
            let char = pattern[index]
            if char == "*" {
                let next = pattern.index(after: index)
                if next < pattern.endIndex, pattern[next] == "*" {
                    regex += ".*"
                    index = pattern.index(after: next)
                    continue
                }
                regex += "[^/.?#]*"
            } else {
                regex += NSRegularExpression.escapedPattern(for: String(char))
            }
            index = pattern.index(after: index)
        }
        regex += "$"
        return url.range(of: regex, options: .regularExpression) != nil
    }
}
