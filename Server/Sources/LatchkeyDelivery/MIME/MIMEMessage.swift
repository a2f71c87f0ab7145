import Foundation
import LatchkeyCore

/// An ``EmailMessage`` as an Internet message (RFC 5322, MIME): UTF-8 headers as encoded words,
/// `multipart/alternative` with a plain-text and an HTML part, `Message-ID` and `Date`.
struct MIMEMessage {
    /// The message with CRLF line ends, ready for `DATA` (before dot-stuffing).
    let rendered: String
    let messageID: String

    init(_ message: EmailMessage, from sender: String, senderName: String?, date: Date, boundary: String? = nil) throws {
        let domain = sender.split(separator: "@").last.map(String.init) ?? "localhost"
        messageID = "<\(UUID().lowercasedString)@\(domain)>"
        let boundary = boundary ?? "latchkey-\(UUID().lowercasedString)"
        for header in [message.subject, senderName ?? ""] where header.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" }) {
            throw SMTPError(.invalidMessage, "a header contains a line break", isPermanent: true)
        }
        let from = senderName.map { "\(Self.displayName($0)) <\(sender)>" } ?? sender
        var lines = [
            "From: \(from)",
            "To: \(message.to.joined(separator: ", "))",
            "Subject: \(Self.encodedHeader(message.subject))",
            "Date: \(Self.rfc5322Date(date))",
            "Message-ID: \(messageID)",
            "MIME-Version: 1.0",
            "Auto-Submitted: auto-generated",
            "Content-Type: multipart/alternative; boundary=\"\(boundary)\"",
            "",
        ]
        for (type, body) in [("text/plain", message.text), ("text/html", message.html)] {
            lines += [
                "--\(boundary)",
                "Content-Type: \(type); charset=UTF-8",
                "Content-Transfer-Encoding: base64",
                "",
            ]
            lines += Self.base64Lines(Data(body.utf8))
        }
        lines.append("--\(boundary)--")
        rendered = lines.joined(separator: "\r\n")
    }

    /// Doubles a leading dot on every line (RFC 5321 §4.5.2).
    static func dotStuffed(_ body: String) -> String {
        var stuffed = body.replacingOccurrences(of: "\r\n.", with: "\r\n..")
        if stuffed.hasPrefix(".") { stuffed = "." + stuffed }
        return stuffed
    }

    /// Whether `address` can go into an envelope command or header without changing its meaning.
    static func isSafeAddress(_ address: String) -> Bool {
        !address.isEmpty && address.contains("@")
            && !address.unicodeScalars.contains(where: {
                $0.properties.isWhitespace || $0.value < 0x20 || $0 == "<" || $0 == ">" || $0 == ","
            })
    }

    /// A header value as is when it is plain ASCII, else as RFC 2047 encoded words of at most 75
    /// characters, folded onto continuation lines.
    static func encodedHeader(_ value: String) -> String {
        guard value.unicodeScalars.contains(where: { !$0.isASCII || $0.value < 0x20 }) else { return value }
        var words: [String] = []
        var chunk = ""
        for character in value {
            // 45 bytes of UTF-8 make 60 base64 characters: with "=?UTF-8?B?" and "?=", 72.
            if chunk.utf8.count + String(character).utf8.count > 45 {
                words.append(chunk)
                chunk = ""
            }
            chunk.append(character)
        }
        if !chunk.isEmpty { words.append(chunk) }
        return words.map { "=?UTF-8?B?\(Data($0.utf8).base64EncodedString())?=" }.joined(separator: "\r\n ")
    }

    /// A display name as a quoted string, or as encoded words when it is not ASCII.
    static func displayName(_ name: String) -> String {
        if name.unicodeScalars.contains(where: { !$0.isASCII }) { return encodedHeader(name) }
        let escaped = name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return "\"\(escaped)\""
    }

    /// Base64 in lines of 76 characters.
    static func base64Lines(_ data: Data) -> [String] {
        let encoded = data.base64EncodedString()
        var lines: [String] = []
        var index = encoded.startIndex
        while index < encoded.endIndex {
            let end = encoded.index(index, offsetBy: 76, limitedBy: encoded.endIndex) ?? encoded.endIndex
            lines.append(String(encoded[index..<end]))
            index = end
        }
        return lines
    }

    /// A date as RFC 5322 writes it, in UTC: `Sun, 22 Nov 2026 09:05:01 +0000`.
    static func rfc5322Date(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .weekday], from: date)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int?) -> String { value.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00" }
        let day = days[((parts.weekday ?? 1) - 1) % 7]
        let month = months[((parts.month ?? 1) - 1) % 12]
        return "\(day), \(two(parts.day)) \(month) \(parts.year ?? 1970) \(two(parts.hour)):\(two(parts.minute)):\(two(parts.second)) +0000"
    }
}
