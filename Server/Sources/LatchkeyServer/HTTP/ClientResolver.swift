import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore
import Logging
import Synchronization

/// Who is calling: the address every per-IP limit, the MFA challenge's binding and the audit log
/// use, and the user agent.
///
/// - With trusted proxies (`LATCHKEY_TRUSTED_PROXIES`): when the socket's peer is one of them,
///   the client is the right-most address of `X-Forwarded-For` (else of `Forwarded`'s `for=`)
///   that is not a trusted proxy. Proxies append what they saw, so everything left of that entry
///   is whatever the client chose to send; everything right of it was written by proxies that
///   are trusted. A peer that is not trusted is the client, whatever it sends.
/// - With a trusted header (`GOTRUE_RATE_LIMIT_HEADER`, GoTrue's setting): the right-most address
///   in it.
/// - Otherwise the socket's peer. Requests that carry `X-Forwarded-For` from a private or
///   loopback peer then mean a proxy nobody told the server about: every client behind it shares
///   its limits, and one warning says so.
struct ClientResolver: Sendable {
    let trustedIPHeader: HTTPField.Name?
    var trustedProxies: [IPNetwork] = []
    var logger: Logger? = nil
    private let warned = Warned()

    init(trustedIPHeader: HTTPField.Name?, trustedProxies: [IPNetwork] = [], logger: Logger? = nil) {
        self.trustedIPHeader = trustedIPHeader
        self.trustedProxies = trustedProxies
        self.logger = logger
    }

    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!
    static let forwarded = HTTPField.Name("Forwarded")!

    func client(_ request: Request, _ context: APIRequestContext) -> ClientInfo {
        ClientInfo(
            ip: address(peer: context.peerAddress, headers: request.headers),
            userAgent: request.headers[.userAgent].map { String($0.prefix(512)) })
    }

    /// The client's address for a request from `peer` with `headers`.
    func address(peer: String, headers: HTTPFields) -> String {
        if !trustedProxies.isEmpty {
            guard isTrusted(peer) else { return peer }
            return Self.rightMostUntrusted(in: Self.forwardingChain(headers), trusted: isTrusted) ?? peer
        }
        if let trustedIPHeader {
            // Several header lines read as one list, in order.
            let entries = headers[values: trustedIPHeader].flatMap { $0.split(separator: ",") }
            let last = entries.last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            return !last.isEmpty && last.utf8.count <= 64 ? last : peer
        }
        if headers[Self.forwardedFor] != nil, IPNetwork.isPrivateOrLoopback(peer), warned.first() {
            logger?.warning(
                "requests carry X-Forwarded-For from \(peer), a private address that is not a trusted proxy: every client behind it shares one set of rate limits. Set LATCHKEY_TRUSTED_PROXIES to the proxy's network (or GOTRUE_RATE_LIMIT_HEADER)."
            )
        }
        return peer
    }

    private func isTrusted(_ address: String) -> Bool {
        guard let bytes = IPNetwork.bytes(of: address) else { return false }
        return trustedProxies.contains { $0.contains(bytes) }
    }

    /// The addresses proxies recorded, left (the client's side) to right: `X-Forwarded-For`
    /// (every header line, in order), else the `for=` of each `Forwarded` element (RFC 7239).
    static func forwardingChain(_ headers: HTTPFields) -> [String] {
        let xff = headers[values: forwardedFor].flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        if !xff.isEmpty { return Array(xff.suffix(64)) }
        let elements = headers[values: forwarded].flatMap { $0.split(separator: ",") }
        let fors: [String] = elements.compactMap { element in
            for pair in element.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "for" else { continue }
                return forwardedNode(parts[1].trimmingCharacters(in: .whitespaces))
            }
            return nil
        }
        return Array(fors.suffix(64))
    }

    /// A `Forwarded` node without quotes, brackets and port: `"[2001:db8::1]:4711"` → `2001:db8::1`,
    /// `192.0.2.60:80` → `192.0.2.60`.
    static func forwardedNode(_ raw: String) -> String {
        var node = raw
        if node.hasPrefix("\""), node.hasSuffix("\""), node.count >= 2 { node = String(node.dropFirst().dropLast()) }
        if node.hasPrefix("["), let close = node.firstIndex(of: "]") {
            return String(node[node.index(after: node.startIndex)..<close])
        }
        if node.filter({ $0 == ":" }).count == 1, let colon = node.firstIndex(of: ":") { return String(node[..<colon]) }
        return node
    }

    /// The right-most entry of `chain` that `trusted` does not accept, written the usual way;
    /// `nil` when that entry is not an address (then nothing in the chain can be believed) or
    /// the chain is empty. When every entry is trusted, the left-most one.
    static func rightMostUntrusted(in chain: [String], trusted: (String) -> Bool) -> String? {
        for entry in chain.reversed() {
            guard let bytes = IPNetwork.bytes(of: entry) else { return nil }
            if !trusted(entry) { return IPNetwork.text(of: bytes) }
        }
        return chain.first.flatMap { IPNetwork.bytes(of: $0) }.flatMap(IPNetwork.text(of:))
    }
}

/// Whether the one warning has been logged.
private final class Warned: Sendable {
    private let done = Atomic<Bool>(false)

    /// `true` the first time only.
    func first() -> Bool { !done.exchange(true, ordering: .relaxed) }
}
