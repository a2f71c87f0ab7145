#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An IPv4 or IPv6 network (`10.0.0.0/8`, `fd00::/8`, or one address, `192.0.2.7`): the
/// proxies whose `X-Forwarded-For` is believed, the addresses outbound calls may not reach, and
/// the networks per-IP limits count by. Addresses are read by `inet_pton`, strictly: no zones, no
/// ports, no brackets, no leading zeros that `inet_pton` refuses. An IPv4-mapped IPv6 address
/// (`::ffff:192.0.2.7`) is the IPv4 address.
public struct IPNetwork: Sendable, Equatable, CustomStringConvertible {
    /// 4 bytes for IPv4, 16 for IPv6; the bits past the prefix are zero.
    public let address: [UInt8]
    public let prefixLength: Int

    /// `nil` for anything that is not an address, optionally with `/prefix` within its family's
    /// length.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let bytes = Self.bytes(of: String(parts[0])) else { return nil }
        var length = bytes.count * 8
        if parts.count == 2 {
            guard let given = Int(parts[1]), (0...length).contains(given), parts[1].allSatisfy(\.isASCII),
                parts[1].allSatisfy(\.isNumber)
            else { return nil }
            length = given
        }
        prefixLength = length
        address = Self.masked(bytes, length)
    }

    public var description: String { "\(Self.text(of: address) ?? "?")/\(prefixLength)" }

    /// Whether `text` is an address inside this network.
    public func contains(_ text: String) -> Bool {
        guard let bytes = Self.bytes(of: text) else { return false }
        return contains(bytes)
    }

    public func contains(_ bytes: [UInt8]) -> Bool {
        bytes.count == address.count && Self.masked(bytes, prefixLength) == address
    }

    /// The bytes of an IPv4 or IPv6 address (an IPv4-mapped IPv6 address as IPv4); `nil` for
    /// anything else, including an empty string, a port or a zone.
    public static func bytes(of text: String) -> [UInt8]? {
        guard !text.isEmpty, text.utf8.count <= 45, !text.utf8.contains(0) else { return nil }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff { return Array(bytes[12...]) }
        return bytes
    }

    /// The usual text of an address's bytes (for logs and keys): `192.0.2.7`, `2001:db8::1`.
    public static func text(of bytes: [UInt8]) -> String? {
        var buffer = [CChar](repeating: 0, count: 64)
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        let written = bytes.withUnsafeBytes { raw in inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count)) }
        guard written != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Loopback, private (RFC 1918, unique-local), link-local and carrier-grade NAT addresses:
    /// where a reverse proxy in front of the server usually is.
    public static func isPrivateOrLoopback(_ text: String) -> Bool {
        guard let bytes = bytes(of: text) else { return false }
        return privateNetworks.contains { $0.contains(bytes) }
    }

    static let privateNetworks = [
        "127.0.0.0/8", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16", "100.64.0.0/10", "::1/128",
        "fc00::/7", "fe80::/10",
    ].compactMap(IPNetwork.init)

    /// Whether the address `bytes` is not on the public internet: the private networks above,
    /// unspecified (`0.0.0.0/8`, `::`), site-local (`fec0::/10`), and an IPv6 address that carries
    /// an IPv4 one (NAT64's `64:ff9b::/96`, the old IPv4-compatible `::/96`) by that address.
    public static func isInternal(_ bytes: [UInt8]) -> Bool {
        if internalNetworks.contains(where: { $0.contains(bytes) }) { return true }
        guard bytes.count == 16 else { return false }
        let carriesIPv4 =
            bytes[0..<12].allSatisfy { $0 == 0 } || bytes[0..<12].elementsEqual([0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0])
        return carriesIPv4 && isInternal(Array(bytes[12...]))
    }

    static let internalNetworks = privateNetworks + ["0.0.0.0/8", "::/128", "fec0::/10"].compactMap(IPNetwork.init)

    /// The loopback networks (`127.0.0.0/8`, `::1`).
    public static func isLoopback(_ bytes: [UInt8]) -> Bool {
        loopbackNetworks.contains { $0.contains(bytes) }
    }

    static let loopbackNetworks = ["127.0.0.0/8", "::1/128"].compactMap(IPNetwork.init)

    private static func masked(_ bytes: [UInt8], _ length: Int) -> [UInt8] {
        var result = bytes
        for index in result.indices {
            let bitsHere = max(0, min(8, length - index * 8))
            result[index] &= bitsHere == 8 ? 0xff : ~(0xff >> UInt8(bitsHere))
        }
        return result
    }
}
