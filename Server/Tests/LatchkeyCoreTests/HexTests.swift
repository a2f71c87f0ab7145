import Crypto
import Foundation
import Testing

@testable import LatchkeyCore

@Suite struct HexTests {
    /// Every byte is two lower-case digits, as `%02x` writes it, and reads back.
    @Test func bytesAreWrittenAsPrintfWritesThemAndReadBack() throws {
        let every = (0...255).map(UInt8.init)
        #expect(every.hexString == every.map { String(format: "%02x", $0) }.joined())
        #expect(hexBytes(every.hexString) == every)
        #expect([UInt8]().hexString == "")
        var generator = SystemRandomNumberGenerator()
        for length in 0..<80 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(bytes.hexString == bytes.map { String(format: "%02x", $0) }.joined())
            #expect(hexBytes(bytes.hexString) == bytes)
            #expect(hexBytes(bytes.hexString.uppercased()) == bytes)
        }
        let digest = SHA256.hash(data: Array("abc".utf8))
        #expect(digest.hexString == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    /// Text that is not pairs of hex digits reads as nothing (a stored digest is compared only
    /// when it is one).
    @Test(
        arguments: [
            ("", [UInt8]()), ("0", nil), ("000", nil), ("0g", nil), ("g0", nil), (" 0", nil), ("0 ", nil), ("+1", nil),
            ("-1", nil), ("0x", nil), ("0x00", nil), ("é0", nil), ("０0", nil), ("\u{0}0", nil), ("/0", nil), (":0", nil),
            ("@0", nil), ("G0", nil), ("`0", nil), ("ff", [255]), ("FF", [255]), ("fF00", [255, 0]), ("a0B1", [0xA0, 0xB1]),
        ] as [(String, [UInt8]?)])
    func textIsReadOnlyAsPairsOfDigits(_ text: String, _ expected: [UInt8]?) {
        #expect(hexBytes(text) == expected)
        #expect(hexBytes(Substring(text)) == expected)
    }
}
