import Foundation

/// A redirect target read by rules strict enough that a browser reads the same host.
///
/// Browsers parse URLs by the WHATWG URL standard, which forgives much: it reads `\` as `/`,
/// drops tabs and newlines, decodes `%2e` in hosts, skips extra slashes after `https:`, and reads
/// `0x7f.1` as an IPv4 address. Foundation's parser follows RFC 3986 and reads several of those
/// differently (`https://attacker.com\@app.example.com` has the host `app.example.com` to
/// Foundation and `attacker.com` to a browser). So a redirect is accepted only when it has none of
/// the forms on which the two disagree: printable ASCII only, no backslash, no userinfo, no
/// percent sign or empty label in the host, a numeric last label only in a dotted-quad address,
/// no dot segments in the path. What remains reads the same under both, and `description`
/// rebuilds it from the parsed parts: the `Location` a redirect answers with is never the input.
///
/// Unicode host names are refused: give them in their IDNA (`xn--`) form.
public struct RedirectURL: Sendable, Equatable, CustomStringConvertible {
    /// The scheme, lowercased.
    public let scheme: String
    /// The host as written (lowercased for `http` and `https`); `nil` for a URL with no authority
    /// (`com.example.app:/callback`).
    public let host: String?
    /// The port, `nil` when absent or the scheme's default.
    public let port: Int?
    /// The path, percent-encoding as given (`/` for `http` and `https` when empty).
    public let path: String
    public let query: String?
    public let fragment: String?

    /// Schemes that run code or read local data where a browser follows them.
    static let refusedSchemes: Set<String> = [
        "javascript", "data", "vbscript", "file", "blob", "about", "filesystem", "view-source", "ws", "wss", "ftp",
    ]

    /// Parses `text`; `nil` when it is not a URL that every reader reads alike.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= 2048, bytes.allSatisfy(Self.isAllowedByte) else { return nil }
        guard Self.percentEscapesAreValid(bytes) else { return nil }
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let scheme = String(text[..<colon])
        guard Self.isScheme(scheme) else { return nil }
        let lowered = scheme.lowercased()
        guard !Self.refusedSchemes.contains(lowered) else { return nil }
        let isWeb = lowered == "http" || lowered == "https"
        var rest = Substring(text[text.index(after: colon)...])

        var host: String?
        var port: Int?
        if rest.hasPrefix("//") {
            rest = rest.dropFirst(2)
            let end = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
            guard let authority = Self.authority(rest[..<end], web: isWeb) else { return nil }
            host = authority.host
            port = authority.port == Self.defaultPort(lowered) ? nil : authority.port
            rest = rest[end...]
        } else if isWeb {
            // `https:host` and `https:/host` are read by browsers as `https://host`.
            return nil
        }

        let fragmentStart = rest.firstIndex(of: "#")
        let fragment = fragmentStart.map { String(rest[rest.index(after: $0)...]) }
        let beforeFragment = rest[..<(fragmentStart ?? rest.endIndex)]
        let queryStart = beforeFragment.firstIndex(of: "?")
        let query = queryStart.map { String(beforeFragment[beforeFragment.index(after: $0)...]) }
        var path = String(beforeFragment[..<(queryStart ?? beforeFragment.endIndex)])
        guard !Self.hasDotSegment(path) else { return nil }
        if isWeb && path.isEmpty { path = "/" }
        if host == nil && path.hasPrefix("//") { return nil }

        self.scheme = lowered
        self.host = isWeb ? host?.lowercased() : host
        self.port = port
        self.path = path
        self.query = query
        self.fragment = fragment
    }

    public var description: String {
        var text = scheme + ":"
        if let host {
            text += "//" + host
            if let port { text += ":\(port)" }
        }
        text += path
        if let query { text += "?" + query }
        if let fragment { text += "#" + fragment }
        return text
    }

    /// The host, case-folded, for comparisons.
    var hostKey: String? { host?.lowercased() }

    /// Whether the host is this machine (RFC 8252 lets native apps pick any port on it).
    var isLoopback: Bool { hostKey == "localhost" || hostKey == "127.0.0.1" || hostKey == "[::1]" }

    /// This URL with `fragment` in place of its own.
    public func replacingFragment(_ fragment: String) -> RedirectURL {
        RedirectURL(scheme: scheme, host: host, port: port, path: path, query: query, fragment: fragment)
    }

    /// This URL without its fragment and with `item` (already encoded) added to its query.
    public func appendingQuery(_ item: String) -> RedirectURL {
        let joined = query.map { $0.isEmpty ? item : $0 + "&" + item } ?? item
        return RedirectURL(scheme: scheme, host: host, port: port, path: path, query: joined, fragment: nil)
    }

    private init(scheme: String, host: String?, port: Int?, path: String, query: String?, fragment: String?) {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.path = path
        self.query = query
        self.fragment = fragment
    }

    // MARK: - Reading

    /// Printable ASCII but for the characters browsers read differently or escape themselves.
    static func isAllowedByte(_ byte: UInt8) -> Bool {
        guard byte > 0x20, byte < 0x7F else { return false }
        switch byte {
        case UInt8(ascii: "\\"), UInt8(ascii: "\""), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "`"),
            UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "|"), UInt8(ascii: "^"):
            return false
        default: return true
        }
    }

    static func percentEscapesAreValid(_ bytes: [UInt8]) -> Bool {
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, isHexDigit(bytes[index + 1]), isHexDigit(bytes[index + 2]) else { return false }
                index += 3
            } else {
                index += 1
            }
        }
        return true
    }

    static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    static func isScheme(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first.isASCIILetter else { return false }
        return text.unicodeScalars.allSatisfy { $0.isASCIILetter || $0.isASCIIDigit || $0 == "+" || $0 == "-" || $0 == "." }
    }

    static func defaultPort(_ scheme: String) -> Int? {
        switch scheme {
        case "http": 80
        case "https": 443
        default: nil
        }
    }

    /// The host and port of an authority with no userinfo; `nil` when it is not one.
    static func authority(_ text: Substring, web: Bool) -> (host: String, port: Int?)? {
        guard !text.contains("@") else { return nil }
        var hostPart = text
        var portPart: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            hostPart = text[...close]
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portPart = after.dropFirst()
            }
            let inner = hostPart.dropFirst().dropLast()
            guard !inner.isEmpty, inner.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return nil }
        } else {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count <= 2 else { return nil }
            hostPart = parts[0]
            portPart = parts.count == 2 ? parts[1] : nil
            if hostPart.isEmpty {
                // `myapp:///path`: an empty host is fine where the scheme is an app's own.
                guard !web, portPart == nil else { return nil }
                return ("", nil)
            }
            guard isDomain(hostPart) else { return nil }
        }
        var port: Int?
        if let portPart {
            guard (1...5).contains(portPart.count), portPart.allSatisfy(\.isASCIIDigit), let value = Int(portPart),
                value <= 65535
            else { return nil }
            port = value
        }
        return (String(hostPart), port)
    }

    /// Labels of letters, digits and hyphens; a numeric last label only in a dotted-quad address.
    static func isDomain(_ host: Substring) -> Bool {
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count <= 127, host.count <= 253 else { return false }
        for label in labels {
            guard !label.isEmpty, label.count <= 63,
                label.allSatisfy({ $0.isASCIILetter || $0.isASCIIDigit || $0 == "-" })
            else { return false }
        }
        let last = labels[labels.count - 1].lowercased()
        if last.allSatisfy(\.isASCIIDigit) || last.hasPrefix("0x") {
            // The WHATWG parser reads such a host as an IPv4 address in one of its many forms
            // (`0x7f.1`, `2130706433`): accept only the one form that reads the same everywhere.
            return labels.count == 4
                && labels.allSatisfy { label in
                    guard label.allSatisfy(\.isASCIIDigit), let value = Int(label), value <= 255 else { return false }
                    return label == "0" || !label.hasPrefix("0")
                }
        }
        return true
    }

    /// Whether the path has a `.` or `..` segment, in any spelling a browser resolves.
    static func hasDotSegment(_ path: String) -> Bool {
        path.split(separator: "/", omittingEmptySubsequences: false).contains { segment in
            let decoded = segment.lowercased().replacingOccurrences(of: "%2e", with: ".")
            return decoded == "." || decoded == ".."
        }
    }
}

extension Character {
    fileprivate var isASCIILetter: Bool { isASCII && isLetter }
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
