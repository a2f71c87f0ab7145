import Foundation

/// One entry of the redirect allow list (GoTrue's `GOTRUE_URI_ALLOW_LIST`), matched against a
/// parsed `RedirectURL` part by part, never against the input text.
///
/// - Scheme: literal, case-folded.
/// - Host: `*` matches letters, digits and hyphens within one DNS label (`preview-*.vercel.app`,
///   `*.example.com`); `**` matches one or more whole labels. Neither ever matches `@`, `:`, `\`
///   or `.` inside a label, so no wildcard reaches past the host.
/// - Port: literal, or `*` for any; absent means the scheme's default.
/// - Path and query: without a wildcard, the entry's path and everything below it, with any
///   query; with one, `*` matches within one path segment and `**` anything.
struct RedirectPattern: Sendable {
    let scheme: String
    let host: NSRegularExpression?
    let anyPort: Bool
    let port: Int?
    /// Without a wildcard: the path the entry allows, with everything below it.
    let pathPrefix: String
    /// With one: the expression the path and query must match.
    let pathExpression: NSRegularExpression?

    init?(_ entry: String) {
        let entry = entry.trimmingCharacters(in: .whitespaces)
        guard let colon = entry.firstIndex(of: ":") else { return nil }
        scheme = entry[..<colon].lowercased()
        guard !scheme.isEmpty, !scheme.contains("*") else { return nil }
        var rest = entry[entry.index(after: colon)...]
        if rest.hasPrefix("//") {
            rest = rest.dropFirst(2)
            let end = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
            let authority = rest[..<end]
            rest = rest[end...]
            var hostText = authority
            var portText: Substring?
            if !authority.hasPrefix("["), let portColon = authority.lastIndex(of: ":") {
                hostText = authority[..<portColon]
                portText = authority[authority.index(after: portColon)...]
            }
            guard let host = try? NSRegularExpression(pattern: Self.hostExpression(hostText.lowercased())) else {
                return nil
            }
            self.host = host
            anyPort = portText == "*"
            if let portText, !anyPort {
                guard let value = Int(portText) else { return nil }
                port = value == RedirectURL.defaultPort(scheme) ? nil : value
            } else {
                port = nil
            }
        } else {
            host = nil
            anyPort = false
            port = nil
        }
        let path = String(rest.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
        pathPrefix = String(path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
        if path.contains("*") {
            guard let expression = try? NSRegularExpression(pattern: Self.pathExpression(path)) else { return nil }
            pathExpression = expression
        } else {
            pathExpression = nil
        }
    }

    func matches(_ url: RedirectURL) -> Bool {
        guard url.scheme == scheme else { return false }
        switch (host, url.hostKey) {
        case (nil, nil): break
        case (let host?, let candidate?):
            guard Self.wholeMatch(host, candidate) else { return false }
            guard anyPort || url.port == port else { return false }
        default: return false
        }
        if let pathExpression {
            let target = url.query.map { url.path + "?" + $0 } ?? url.path
            return Self.wholeMatch(pathExpression, target)
        }
        if pathPrefix.isEmpty || pathPrefix == "/" || url.path == pathPrefix { return true }
        return url.path.hasPrefix(pathPrefix.hasSuffix("/") ? pathPrefix : pathPrefix + "/")
    }

    static func wholeMatch(_ expression: NSRegularExpression, _ text: String) -> Bool {
        let range = NSRange(text.startIndex..., in: text)
        guard let match = expression.firstMatch(in: text, options: [.anchored], range: range) else { return false }
        return match.range == range
    }

    static func hostExpression(_ pattern: String) -> String {
        if pattern == "**" { return "^[a-z0-9-]+(\\.[a-z0-9-]+)*$" }
        return "^" + expression(pattern, single: "[a-z0-9-]*", double: "[a-z0-9-]+(\\.[a-z0-9-]+)*") + "$"
    }

    static func pathExpression(_ pattern: String) -> String {
        "^" + expression(pattern, single: "[^/?#]*", double: "[^#]*") + "$"
    }

    static func expression(_ pattern: String, single: String, double: String) -> String {
        var result = ""
        var index = pattern.startIndex
        while index < pattern.endIndex {
            let next = pattern.index(after: index)
            if pattern[index] == "*" {
                if next < pattern.endIndex, pattern[next] == "*" {
                    result += double
                    index = pattern.index(after: next)
                    continue
                }
                result += single
            } else {
                result += NSRegularExpression.escapedPattern(for: String(pattern[index]))
            }
            index = next
        }
        return result
    }
}
