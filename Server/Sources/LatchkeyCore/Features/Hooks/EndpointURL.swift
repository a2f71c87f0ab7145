import Foundation

/// Where the server may post hooks and webhooks, by GoTrue's rule for hooks: `https://` anywhere,
/// `http://` only to this machine (`localhost`, `127.0.0.1`, `::1`, `host.docker.internal`).
public enum EndpointURL {
    /// Why `uri` may not be posted to, or `nil` when it may.
    public static func problem(_ uri: String) -> String? {
        if uri.lowercased().hasPrefix("pg-functions:") {
            return "Postgres function hooks (pg-functions://) are not supported: serve the hook over HTTPS"
        }
        guard uri.utf8.count <= 2048, let components = URLComponents(string: uri), let scheme = components.scheme?.lowercased(),
            let host = components.host, !host.isEmpty, components.user == nil, components.password == nil
        else { return "'\(uri.prefix(200))' is not an http(s) URL" }
        switch scheme {
        case "https":
            return nil
        case "http":
            let local = ["localhost", "127.0.0.1", "::1", "[::1]", "host.docker.internal"]
            return local.contains(host.lowercased())
                ? nil : "only localhost, 127.0.0.1, ::1 and host.docker.internal are supported with http; use https"
        default:
            return "'\(scheme)' URLs are not supported: use https"
        }
    }
}
