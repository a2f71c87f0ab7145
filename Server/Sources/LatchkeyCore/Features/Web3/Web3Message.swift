import Foundation

/// A "Sign in with Ethereum" (EIP-4361) or "Sign in with Solana" message, read as GoTrue's
/// `siwe`/`siws` parsers read it, so that what supabase-js, the `siwe` libraries and wallets build
/// is taken, and GoTrue's error texts are the refusals' (`siwe: URI is not valid`). Stricter where
/// no honest client can tell: the URI read by the redirect rules' strict parser, a field given twice
/// refused (the wallet showed one value, the server would read another), carriage returns refused.
///
/// ```
/// app.example.com wants you to sign in with your Ethereum account:
/// 0x196a28d05bA75C8dC35B0F6e71DD622D1aC82b7E
///
/// Sign in to Example
///
/// URI: https://app.example.com
/// Version: 1
/// Chain ID: 1
/// Nonce: 12345678
/// Issued At: 2025-01-01T00:00:00.000Z
/// ```
public struct Web3Message: Sendable, Equatable {
    public enum Chain: String, Sendable, CaseIterable {
        case ethereum, solana

        var prefix: String { self == .ethereum ? "siwe" : "siws" }
        var name: String { self == .ethereum ? "Ethereum" : "Solana" }
    }

    public var chain: Chain
    /// The host (and port) the message says it was signed for.
    public var domain: String
    /// The wallet's address as written: `0x` and 40 hex digits, or base58.
    public var address: String
    public var statement: String?
    public var uri: RedirectURL
    public var version: String
    /// `Chain ID`: a positive integer on Ethereum, `solana:mainnet` and its like on Solana.
    public var chainID: String?
    public var nonce: String?
    public var issuedAt: Date
    public var expirationTime: Date?
    public var notBefore: Date?
    public var requestID: String?
    public var resources: [String]

    /// A message that cannot be read: GoTrue's text (`400 validation_failed`).
    public struct Invalid: Error, Equatable, Sendable {
        public var message: String
    }

    /// Reads `text` as `chain`'s message.
    public static func parse(_ text: String, chain: Chain) throws(Invalid) -> Web3Message {
        func invalid(_ message: String) -> Invalid { Invalid(message: "\(chain.prefix): \(message)") }
        guard !text.contains("\r") else { throw invalid("message must not contain carriage returns") }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard lines.count >= 6 else { throw invalid("message needs at least 6 lines") }
        let header = " wants you to sign in with your \(chain.name) account:"
        guard lines[0].hasSuffix(header) else { throw invalid("message first line does not end in \"\(header)\"") }
        let domain = String(lines[0].dropLast(header.count)).trimmingCharacters(in: .whitespaces)
        guard isDomain(domain) else { throw invalid("domain in first line of message is not valid") }
        let address = lines[1].trimmingCharacters(in: .whitespaces)
        switch chain {
        case .ethereum:
            guard address.utf8.count == 42, address.hasPrefix("0x"), address.utf8.dropFirst(2).allSatisfy(\.isHexDigit) else {
                throw invalid("wallet address is not a valid Ethereum address")
            }
        case .solana:
            guard (32...44).contains(address.utf8.count), address.utf8.allSatisfy(\.isASCIIAlphanumeric) else {
                throw invalid("wallet address is not in base58 format")
            }
        }
        guard lines[2].isEmpty else { throw invalid("third line must be empty") }
        var index = 3
        var statement: String?
        if !lines[3].isEmpty, lines.count > 4, lines[4].isEmpty {
            statement = lines[3]
            index = 5
        }

        var fields: [String: String] = [:]
        var resources: [String] = []
        var inResources = false
        while index < lines.count {
            let line = lines[index].trimmingCharacters(in: .whitespaces)
            defer { index += 1 }
            if inResources, line.hasPrefix("- ") {
                let resource = String(line.dropFirst(2)).trimmingCharacters(in: .whitespaces)
                guard RedirectURL(resource) != nil else { throw invalid("Resource at position \(resources.count) has invalid URI") }
                resources.append(resource)
                continue
            }
            inResources = false
            if line == "Resources:" {
                inResources = true
                continue
            }
            if line.isEmpty { continue }
            guard let colon = line.firstIndex(of: ":") else { throw invalid("encountered unparsable line at index \(index)") }
            let key = String(line[..<colon])
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            guard Self.keys.contains(key) else { continue }  // GoTrue ignores other keys.
            guard fields[key] == nil else { throw invalid("\(key) is given more than once") }
            fields[key] = value
            switch key {
            case "URI": guard RedirectURL(value) != nil else { throw invalid("URI is not valid") }
            case "Chain ID": guard isChainID(value, chain) else { throw invalid("Chain ID is not valid") }
            case "Issued At", "Expiration Time", "Not Before":
                guard timestamp(value) != nil else { throw invalid("\(key) is not a valid ISO8601 timestamp") }
            default: break
            }
        }
        let version = fields["Version"] ?? ""
        guard version == "1" else { throw invalid("Version value is not supported, expected 1 got \"\(version)\"") }
        guard let issuedAt = fields["Issued At"].flatMap(timestamp) else { throw invalid("Issued At is not specified") }
        guard let uri = fields["URI"].flatMap(RedirectURL.init) else { throw invalid("URI is not specified") }
        let expirationTime = fields["Expiration Time"].flatMap(timestamp)
        let notBefore = fields["Not Before"].flatMap(timestamp)
        if let expirationTime, issuedAt > expirationTime { throw invalid("Issued At is after Expiration Time") }
        if let expirationTime, let notBefore, notBefore > expirationTime { throw invalid("Not Before is after Expiration Time") }
        return Web3Message(
            chain: chain, domain: domain, address: address, statement: statement, uri: uri, version: version,
            chainID: fields["Chain ID"].flatMap { $0.isEmpty ? nil : $0 }, nonce: fields["Nonce"], issuedAt: issuedAt,
            expirationTime: expirationTime, notBefore: notBefore, requestID: fields["Request ID"], resources: resources)
    }

    static let keys: Set<String> = ["URI", "Version", "Chain ID", "Nonce", "Issued At", "Expiration Time", "Not Before", "Request ID"]

    /// `localhost`, or a DNS name with an alphabetic top-level label of two letters or more,
    /// each with an optional `:port` (GoTrue's rule: no scheme, no IP address).
    static func isDomain(_ text: String) -> Bool {
        var host = Substring(text)
        if let colon = text.lastIndex(of: ":") {
            let port = text[text.index(after: colon)...]
            guard (1...5).contains(port.count), port.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return false }
            host = text[..<colon]
        }
        if host == "localhost" { return true }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, let top = labels.last, top.count >= 2, top.utf8.allSatisfy(\.isASCIILetter) else { return false }
        return labels.allSatisfy { label in
            (1...63).contains(label.utf8.count) && label.utf8.allSatisfy { $0.isASCIIAlphanumeric || $0 == UInt8(ascii: "-") }
                && label.utf8.first != UInt8(ascii: "-") && label.utf8.last != UInt8(ascii: "-")
        }
    }

    static func isChainID(_ value: String, _ chain: Chain) -> Bool {
        switch chain {
        case .ethereum:
            guard let number = Int64(value.hasPrefix("+") ? String(value.dropFirst()) : value) else { return false }
            return number > 0
        case .solana:
            return value.isEmpty || ["solana:mainnet", "solana:devnet", "solana:testnet", "solana:localnet"].contains(value)
        }
    }

    /// An RFC 3339 time, with or without fractions of a second.
    static func timestamp(_ text: String) -> Date? {
        guard text.utf8.count <= 40 else { return nil }
        if let date = try? Date(text, strategy: .iso8601) { return date }
        return try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}

extension UInt8 {
    var isHexDigit: Bool { (0x30...0x39).contains(self) || (0x41...0x46).contains(self) || (0x61...0x66).contains(self) }
    var isASCIILetter: Bool { (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self) }
    var isASCIIAlphanumeric: Bool { isASCIILetter || (0x30...0x39).contains(self) }
}
