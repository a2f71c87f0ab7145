import Foundation

/// Canonical email addresses, so that one person is one account.
///
/// Canonical form: Unicode NFKC (so the Kelvin sign becomes `k` and full-width letters become
/// ASCII), then lower-cased, surrounding whitespace removed. The address must have one `@`, a
/// local part of 1–64 bytes and a domain of dot-separated labels (letters, digits, hyphens or
/// non-ASCII letters, 1–63 bytes each, at least two labels), 254 bytes at most in all, and no
/// control characters, spaces, quotes or angle brackets. Look-alike scripts stay distinct:
/// Cyrillic `а` is not Latin `a`.
public enum EmailAddress {
    /// The canonical form of `raw`, or `nil` when it is not a valid address.
    public static func canonical(_ raw: String) -> String? {
        if raw.utf8.allSatisfy({ $0 < 0x80 }) { return canonicalASCII(raw) }
        let trimmed = raw.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.utf8.count <= 512 else { return nil }
        return validated(trimmed.precomposedStringWithCompatibilityMapping.lowercased())
    }

    /// ``canonical(_:)`` for an ASCII address (nearly every one), on its bytes: NFKC changes
    /// nothing, the only whitespace is a space or a tab, and every rule is a byte class, so
    /// Foundation's Unicode passes and the scalar property look-ups are skipped. Gives exactly
    /// what the general rules give (`EmailAddressTests` compares the two).
    static func canonicalASCII(_ raw: String) -> String? {
        let bytes = raw.utf8.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }.reversed()
        guard !bytes.isEmpty, bytes.count <= 254 else { return nil }
        let folded = bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        guard let at = folded.firstIndex(of: 0x40), folded[(at + 1)...].firstIndex(of: 0x40) == nil else { return nil }
        let local = folded[..<at]
        let domain = folded[(at + 1)...]
        guard (1...64).contains(local.count), isValidLocalASCII(local), isValidDomainASCII(domain) else { return nil }
        return String(decoding: folded, as: UTF8.self)
    }

    /// Printable ASCII but the forbidden characters, no dot at either end or twice in a row.
    static func isValidLocalASCII(_ local: ArraySlice<UInt8>) -> Bool {
        guard local.first != 0x2E, local.last != 0x2E else { return false }
        var previous: UInt8 = 0
        for byte in local {
            guard byte > 0x20, byte < 0x7F, !forbiddenLocalASCII.contains(byte) else { return false }
            if byte == 0x2E, previous == 0x2E { return false }
            previous = byte
        }
        return true
    }

    /// ``forbiddenLocal`` as bytes: `"(),:;<>[\]@` and the backquote.
    static let forbiddenLocalASCII: [UInt8] = [0x22, 0x28, 0x29, 0x2C, 0x3A, 0x3B, 0x3C, 0x3E, 0x5B, 0x5C, 0x5D, 0x40, 0x60]

    /// Two labels or more of letters, digits and inner hyphens, 1–63 bytes each; the last not
    /// all digits.
    static func isValidDomainASCII(_ domain: ArraySlice<UInt8>) -> Bool {
        guard domain.count <= 253 else { return false }
        var labels = 0
        var length = 0
        var allDigits = true
        var previous: UInt8 = 0x2E
        for byte in domain {
            if byte == 0x2E {
                guard length > 0, previous != 0x2D else { return false }
                labels += 1
                length = 0
                allDigits = true
            } else {
                let digit = byte >= 0x30 && byte <= 0x39
                let letter = byte >= 0x61 && byte <= 0x7A
                guard digit || letter || byte == 0x2D, !(byte == 0x2D && length == 0) else { return false }
                length += 1
                guard length <= 63 else { return false }
                if !digit { allDigits = false }
            }
            previous = byte
        }
        guard length > 0, previous != 0x2D else { return false }
        return labels + 1 >= 2 && !allDigits
    }

    /// The rules for any address, on the folded (NFKC, lower-cased, trimmed) form.
    static func validated(_ folded: String) -> String? {
        guard folded.utf8.count <= 254 else { return nil }
        let parts = folded.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let local = parts[0]
        let domain = parts[1]
        guard (1...64).contains(local.utf8.count), isValidLocal(local), isValidDomain(domain) else { return nil }
        return folded
    }

    static let forbiddenLocal: Set<Unicode.Scalar> = [
        " ", "\"", "(", ")", ",", ":", ";", "<", ">", "[", "\\", "]", "@", "`",
    ]

    static func isValidLocal(_ local: Substring) -> Bool {
        guard !local.hasPrefix("."), !local.hasSuffix("."), !local.contains("..") else { return false }
        for scalar in local.unicodeScalars {
            if scalar.properties.generalCategory == .control || scalar.properties.isWhitespace { return false }
            if forbiddenLocal.contains(scalar) { return false }
            if scalar.properties.generalCategory == .format || scalar.properties.generalCategory == .unassigned {
                return false
            }
        }
        return true
    }

    static func isValidDomain(_ domain: Substring) -> Bool {
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, domain.utf8.count <= 253 else { return false }
        for label in labels {
            guard (1...63).contains(label.utf8.count), !label.hasPrefix("-"), !label.hasSuffix("-") else { return false }
            for scalar in label.unicodeScalars {
                let ok =
                    (scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "-"))
                    || (!scalar.isASCII && (scalar.properties.isAlphabetic || scalar.properties.numericType != nil))
                if !ok { return false }
            }
        }
        // The top-level label may not be all digits.
        return !(labels.last!.allSatisfy(\.isNumber))
    }

    /// A masked form for messages, e.g. `a***@example.com`.
    public static func masked(_ address: String) -> String {
        guard let at = address.firstIndex(of: "@") else { return "***" }
        let local = address[..<at]
        return "\(local.prefix(1))***\(address[at...])"
    }
}
