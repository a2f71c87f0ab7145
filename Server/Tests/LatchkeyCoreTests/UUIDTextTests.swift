import Foundation
import LatchkeyCore
import Testing

@Suite struct UUIDTextTests {
    @Test func idsAreWrittenAsFoundationWritesThemLowercased() {
        for _ in 0..<10_000 {
            let id = UUID()
            #expect(id.lowercasedString == id.uuidString.lowercased())
        }
        let edges = [
            UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
            UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255)),
        ]
        for id in edges { #expect(id.lowercasedString == id.uuidString.lowercased()) }
    }

    @Test func canonicalTextOfEitherCaseReadsBack() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<10_000 {
            let id = UUID()
            let mixed = String(id.uuidString.map { Bool.random(using: &generator) ? Character($0.lowercased()) : $0 })
            #expect(UUID(text: id.uuidString) == id)
            #expect(UUID(text: id.lowercasedString) == id)
            #expect(UUID(text: mixed) == id)
        }
    }

    /// Hostile text gets the answer `UUID(uuidString:)` gives: what the canonical reader refuses
    /// goes to Foundation, and it accepts nothing Foundation would read differently.
    @Test(arguments: [
        "", "-", "00000000-0000-0000-0000-00000000000", "00000000-0000-0000-0000-0000000000000",
        "00000000-0000-0000-0000-000000000000", "0000000g-0000-0000-0000-000000000000",
        "00000000_0000-0000-0000-000000000000", "000000000-000-0000-0000-000000000000",
        "+1234567-89ab-cdef-0123-456789abcdef", " 1234567-89ab-cdef-0123-456789abcdef",
        "0x234567-89ab-cdef-0123-456789abcdef", "12345678-89ab-cdef-0123-456789abcdef\0",
        "12345678-89ab-cdef-0123-456789abcde\0f", "{12345678-89ab-cdef-0123-456789abcdef}",
        "1234567889abcdef0123456789abcdef", "１2345678-89ab-cdef-0123-456789abcdef",
        "12345678-89ab-cdef-0123-456789abcdeé", "12345678-89AB-CDEF-0123-456789ABCDEF",
        "12345678-89ab-cdef-0123-456789abcdef ", "12345678-89ab-cdef-0123-456789abcdef\n",
        "1234567-89abc-def0-1234-56789abcdef0", "12345678-89ab-cdef-0123-456789abcdef0",
        "urn:uuid:12345678-89ab-cdef-0123-456789abcdef",
    ])
    func hostileTextIsReadAsFoundationReadsIt(_ text: String) {
        #expect(UUID(text: text) == UUID(uuidString: text))
    }

    @Test func randomTextIsReadAsFoundationReadsIt() {
        let alphabet = Array("0123456789abcdefABCDEF-+ xg\0é")
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            var characters = Array(UUID().uuidString)
            for _ in 0..<Int.random(in: 0...3, using: &generator) {
                characters[Int.random(in: 0..<characters.count, using: &generator)] = alphabet.randomElement(using: &generator)!
            }
            if Bool.random(using: &generator) { characters.removeLast() }
            let text = String(characters)
            #expect(UUID(text: text) == UUID(uuidString: text), "\(text.debugDescription)")
        }
    }
}
