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
