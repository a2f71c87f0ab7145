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

    /// `localhost`, or an address literal that is not on the public internet, in any spelling
    /// `inet_pton` reads (``IPNetwork/isInternal(_:)``): loopback, private, link-local, shared,
    /// unspecified, or an IPv6 address carrying one of those IPv4 addresses.
    public static func isInternal(_ host: String) -> Bool {
        let bare = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if bare == "localhost" { return true }
        return IPNetwork.bytes(of: bare).map(IPNetwork.isInternal) ?? false
    }

    /// `localhost`, `127.0.0.0/8` or `::1`.
    static func isLoopback(_ host: String) -> Bool {
        let bare = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if bare == "localhost" { return true }
        return IPNetwork.bytes(of: bare).map(IPNetwork.isLoopback) ?? false
    }

    /// The discovery document's URL for `issuer`: `<issuer>/.well-known/openid-configuration`.
    public static func discovery(for issuer: String) -> String {
        (issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer) + "/.well-known/openid-configuration"
    }
}
