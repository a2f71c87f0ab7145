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
        let zoneless = bare.split(separator: "%", maxSplits: 1).first.map(String.init) ?? bare
        guard bare.contains(":"), let bytes = IPNetwork.bytes(of: zoneless) else { return ip }
        // An IPv4-mapped address reads as its IPv4 address.
        guard bytes.count == 16, let network = IPNetwork(zoneless + "/64") else { return IPNetwork.text(of: bytes) ?? ip }
        let words = stride(from: 0, to: 8, by: 2).map { index in
            String(UInt16(network.address[index]) << 8 | UInt16(network.address[index + 1]), radix: 16)
        }
        return words.joined(separator: ":") + "::/64"
    }
}
