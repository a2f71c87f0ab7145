import Foundation

/// The rule for the URLs Latchkey fetches a provider's keys from: HTTPS, or plain HTTP on a
/// loopback address only (local development and tests); no user info, no fragment.
public enum IssuerURL {
    /// Whether `text` is an acceptable issuer, discovery or key-set URL.
    public static func isAcceptable(_ text: String) -> Bool {
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty,
            url.user == nil, url.password == nil, url.fragment == nil
        else { return false }
        switch scheme {
        case "https": return true
        case "http": return isLoopback(host)
        default: return false
        }
    }

    /// Whether `text`, a URL a provider's own document named (its `jwks_uri`, token or
    /// authorization endpoint), may be fetched for the provider at `issuer`: acceptable as
    /// above, and on an internal address (loopback, private, link-local: a cloud's metadata
    /// service) only when the issuer itself is on one. A public provider's document cannot point
    /// Latchkey at the machines behind it.
    public static func isAcceptable(_ text: String, namedBy issuer: String) -> Bool {
        guard isAcceptable(text), let host = URLComponents(string: text)?.host else { return false }
        guard isInternal(host) else { return true }
        guard let issuerHost = URLComponents(string: issuer)?.host else { return false }
        return isInternal(issuerHost)
    }

    /// `localhost`, or an address literal that is not on the public internet: loopback,
    /// private (RFC 1918, RFC 4193), link-local (169.254/16, fe80::/10), shared (100.64/10) or
    /// unspecified.
    public static func isInternal(_ host: String) -> Bool {
        if isLoopback(host) { return true }
        let bare = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if let v4 = ipv4(bare) {
            switch (v4[0], v4[1]) {
            case (0, _), (10, _), (127, _), (169, 254), (192, 168): return true
            case (172, 16...31), (100, 64...127): return true
            default: return false
            }
        }
        guard bare.contains(":") else { return false }
        if bare == "::" || bare == "::1" { return true }
        if bare.hasPrefix("::ffff:") { return isInternal(String(bare.dropFirst(7))) }
        let first = bare.split(separator: ":", omittingEmptySubsequences: false).first ?? ""
        guard let word = UInt16(first, radix: 16) else { return bare.hasPrefix("::") }
        return word & 0xffc0 == 0xfe80 || word & 0xfe00 == 0xfc00
    }

    /// The four numbers of a dotted IPv4 literal.
    static func ipv4(_ host: String) -> [UInt8]? {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        let numbers = parts.compactMap { part in (!part.isEmpty && (part == "0" || !part.hasPrefix("0"))) ? UInt8(part) : nil }
        return numbers.count == 4 ? numbers : nil
    }

    /// `localhost`, `127.0.0.0/8` or `::1`.
    static func isLoopback(_ host: String) -> Bool {
        let host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if host == "localhost" || host == "::1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts.allSatisfy({ UInt8($0) != nil && !$0.isEmpty && ($0 == "0" || !$0.hasPrefix("0")) }) else {
            return false
        }
        return parts[0] == "127"
    }

    /// The discovery document's URL for `issuer`: `<issuer>/.well-known/openid-configuration`.
    public static func discovery(for issuer: String) -> String {
        (issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer) + "/.well-known/openid-configuration"
    }
}
