import Foundation
import LatchkeyAPI
import Testing

/// base64url as the API document's patterns describe it: the URL alphabet, unpadded or padded to
/// a multiple of four, `=` nowhere else.
@Suite struct Base64URLTests {
    @Test func acceptsTheURLAlphabetUnpaddedOrPadded() {
        let bytes: [UInt8] = (0..<32).map { UInt8(truncatingIfNeeded: $0 * 7 + 250) }
        let text = Base64URL.encode(bytes)
        #expect(text.utf8.count == 43)
        #expect(Base64URL.decode(text) == bytes)
        #expect(Base64URL.decode(text + "=") == bytes)
        #expect(Base64URL.decode("AA") == [0])
        #expect(Base64URL.decode("AA==") == [0])
        #expect(Base64URL.decode("AAA") == [0, 0])
        #expect(Base64URL.decode("AAA=") == [0, 0])
        #expect(Base64URL.decode("") == [])
        #expect(Base64URL.decode("_-8") == [0xFF, 0xEF])
    }

    @Test func refusesEverythingElse() {
        for bad in [
            "A", "AAAAA", "A===", "AA=", "AA=A", "AAAA====", "AAAA=", "AA===", "=AA", "AA+A", "AA/A", "AA A", " AAA",
            "AAA\n", "AA\u{0}A", "ÄAAA", "AAA==",
        ] {
            #expect(Base64URL.decode(bad) == nil, "\(bad.debugDescription)")
        }
        #expect(Base64URL.decode(String(repeating: "A", count: 4100)) == nil)
    }
}
