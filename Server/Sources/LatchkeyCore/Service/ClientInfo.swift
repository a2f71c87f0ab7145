import Foundation

/// Who is calling, as far as the server can tell: the client IP used for rate limits (the
/// socket's peer unless a trusted proxy header is configured) and the user agent.
public struct ClientInfo: Sendable, Equatable {
    public var ip: String
    public var userAgent: String?

    public init(ip: String, userAgent: String? = nil) {
        self.ip = ip
        self.userAgent = userAgent
    }

    /// What per-IP limits count by: an IPv4 address as it is; an IPv6 address by its /64, the
    /// smallest network one subscriber is given (a single host can use any of its 2^64
    /// addresses, so counting each alone would let it escape every per-IP limit); an IPv4-mapped
    /// IPv6 address as its IPv4 address. Anything else (no address known) as given.
    public var limitKey: String { Self.limitKey(for: ip) }

    static func limitKey(for ip: String) -> String {
        let bare = ip.hasPrefix("[") && ip.hasSuffix("]") ? String(ip.dropFirst().dropLast()) : ip
        guard bare.contains(":") else { return ip }
        var address = in6_addr()
        let zoneless = bare.split(separator: "%", maxSplits: 1).first.map(String.init) ?? bare
        guard inet_pton(AF_INET6, zoneless, &address) == 1 else { return ip }
        var bytes = withUnsafeBytes(of: &address) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {
            return bytes[12..<16].map(String.init).joined(separator: ".")
        }
        for index in 8..<16 { bytes[index] = 0 }
        let prefix = stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
        return prefix.joined(separator: ":") + "::/64"
    }
}
