import Foundation
import LatchkeyCore
import Testing

@testable import LatchkeyDelivery

@Suite struct MIMEMessageTests {
    let message = EmailMessage(to: ["ada@example.com"], subject: "Your code", text: "Code 123456.\n.hidden line", html: "<p>Héllo</p>")

    @Test func headersAndBothPartsAreWritten() throws {
        let date = Date(timeIntervalSince1970: 1_795_395_173)  // Mon, 23 Nov 2026 00:52:53 UTC
        let mime = try MIMEMessage(message, from: "auth@example.com", senderName: "Example \"Auth\"", date: date, boundary: "B")
        let lines = mime.rendered.components(separatedBy: "\r\n")
        #expect(lines.contains(#"From: "Example \"Auth\"" <auth@example.com>"#))
        #expect(lines.contains("To: ada@example.com"))
        #expect(lines.contains("Subject: Your code"))
        #expect(lines.contains("Date: Mon, 23 Nov 2026 00:52:53 +0000"))
        #expect(lines.contains("Message-ID: \(mime.messageID)"))
        #expect(mime.messageID.hasSuffix("@example.com>"))
        #expect(lines.contains("Content-Type: multipart/alternative; boundary=\"B\""))
        #expect(lines.filter { $0 == "--B" }.count == 2)
        #expect(lines.last == "--B--")
        #expect(lines.allSatisfy { $0.utf8.count <= 998 })
        // Every line ends in CRLF: no bare LF from the bodies survives (they are base64).
        #expect(!mime.rendered.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
        let html = try #require(lines.firstIndex(of: "Content-Type: text/html; charset=UTF-8"))
        #expect(Data(base64Encoded: lines[html + 3]).map { String(decoding: $0, as: UTF8.self) } == "<p>Héllo</p>")
    }

    @Test func nonASCIISubjectsBecomeFoldedEncodedWords() {
        let subject = String(repeating: "Grüße aus Łódź — ", count: 6)
        let encoded = MIMEMessage.encodedHeader(subject)
        let words = encoded.components(separatedBy: "\r\n ")
        #expect(words.count > 1)
        #expect(words.allSatisfy { $0.hasPrefix("=?UTF-8?B?") && $0.hasSuffix("?=") && $0.count <= 75 })
        let decoded = words.map { word -> String in
            let base64 = word.dropFirst("=?UTF-8?B?".count).dropLast(2)
            return String(decoding: Data(base64Encoded: String(base64)) ?? Data(), as: UTF8.self)
        }.joined()
        #expect(decoded == subject)
        #expect(MIMEMessage.encodedHeader("Plain subject") == "Plain subject")
    }

    @Test func headerInjectionAndUnsafeAddressesAreRefused() {
        let injected = EmailMessage(to: ["a@example.com"], subject: "Hi\r\nBcc: victim@example.com", text: "", html: "")
        #expect(throws: SMTPError.self) { try MIMEMessage(injected, from: "auth@example.com", senderName: nil, date: Date()) }
        #expect(!MIMEMessage.isSafeAddress("a@example.com>\r\nRCPT TO:<b@example.com"))
        #expect(!MIMEMessage.isSafeAddress("a@example.com, b@example.com"))
        #expect(!MIMEMessage.isSafeAddress("no-at-sign"))
        #expect(MIMEMessage.isSafeAddress("ada+tag@example.com"))
    }

    @Test func linesStartingWithADotAreDoubled() {
        #expect(MIMEMessage.dotStuffed(".a\r\nb\r\n.c\r\n..d") == "..a\r\nb\r\n..c\r\n...d")
        #expect(MIMEMessage.base64Lines(Data(repeating: 0, count: 200)).allSatisfy { $0.count <= 76 })
    }
}
