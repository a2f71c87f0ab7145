import Foundation

/// Where Latchkey's own outbound requests may go: hooks, webhooks, and a provider's discovery
/// document, key set and token and user endpoints. Checked before every request, on the address
/// the request names (the clients follow no redirect, so no other address is reached):
///
/// - A loopback name or literal (`localhost`, `127.0.0.0/8`, `::1`) or `host.docker.internal` is
///   this machine, named so by the operator (the URL rules upstream allow such URLs only where
///   configured: plain HTTP hooks, loopback issuers, documents of a loopback issuer).
/// - Any other internal address (private, link-local such as a cloud's metadata service at
///   169.254.169.254, shared, unspecified), named literally or reached through a name that resolves
///   to one (loopback included), is refused unless ``allowInternal``
///   (`LATCHKEY_OUTBOUND_ALLOW_PRIVATE`): a provider, a hook URL or a DNS answer cannot turn
///   Latchkey into a client of the machines behind it.
///
/// The name is resolved here and again by the client when it connects; an attacker who controls a
/// name's DNS and answers differently within that moment (DNS rebinding) is not stopped by this
/// check, as `docs/threat-model.md` says.
public struct OutboundPolicy: Sendable {
    /// Internal addresses are allowed (an operator's hooks on a private network).
    public var allowInternal: Bool
    /// The addresses a name resolves to.
    let resolve: @Sendable (String) async -> [String]

    public init(allowInternal: Bool = false, resolve: @escaping @Sendable (String) async -> [String] = OutboundPolicy.systemResolve) {
        self.allowInternal = allowInternal
        self.resolve = resolve
    }

    /// Why `url` may not be requested, or `nil` when it may.
    public func problem(_ url: String) async -> String? {
        guard let host = URLComponents(string: url)?.host, !host.isEmpty else { return "\(url.prefix(200)) has no host" }
        let bare = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if IssuerURL.isLoopback(bare) || bare == "host.docker.internal" { return nil }
        if allowInternal { return nil }
        if let bytes = IPNetwork.bytes(of: bare) {
            return IPNetwork.isInternal(bytes) ? "\(host) is an internal address (LATCHKEY_OUTBOUND_ALLOW_PRIVATE allows it)" : nil
        }
        // An IPv6 literal `inet_pton` does not read (a zone, say) is not an address to call.
        if bare.contains(":") { return "\(host) is not an address Latchkey calls" }
        for address in await resolve(bare) where IssuerURL.isInternal(address) {
            return "\(host) resolves to the internal address \(address) (LATCHKEY_OUTBOUND_ALLOW_PRIVATE allows it)"
        }
        return nil
    }

    /// The system resolver (`getaddrinfo`), off the cooperative threads: every IPv4 and IPv6
    /// address of `host`, or none when it does not resolve (the request then fails to connect).
    @Sendable public static func systemResolve(_ host: String) async -> [String] {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: addresses(of: host))
            }
        }
    }

    static func addresses(of host: String) -> [String] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        var first: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &first) == 0, let first else { return [] }
        defer { freeaddrinfo(first) }
        var found: [String] = []
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let info = next {
            var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if let address = info.pointee.ai_addr,
                getnameinfo(address, info.pointee.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0
            {
                let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                found.append(text.split(separator: "%").first.map(String.init) ?? text)
            }
            next = info.pointee.ai_next
        }
        return found
    }
}
