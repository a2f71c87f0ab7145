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
        let folded: String
        if raw.utf8.allSatisfy({ $0 < 0x80 }) {
            // ASCII (nearly every address): NFKC changes nothing, and the only whitespace is a
            // space or a tab; skip Foundation's Unicode passes.
            let bytes = raw.utf8.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }.reversed()
            guard !bytes.isEmpty, bytes.count <= 512 else { return nil }
            folded = String(decoding: bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
        } else {
            let trimmed = raw.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty, trimmed.utf8.count <= 512 else { return nil }
            folded = trimmed.precomposedStringWithCompatibilityMapping.lowercased()
        }
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
