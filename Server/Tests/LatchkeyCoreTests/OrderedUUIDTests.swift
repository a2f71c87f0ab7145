import Foundation
import Testing

@testable import LatchkeyCore

/// Version 7 UUIDs: the time first, so rows made one after another sort (and are indexed) in
/// the order they were made; the rest random, so two made in the same millisecond differ.
@Suite struct OrderedUUIDTests {
    @Test func theyAreVersion7WithTheTimeFirstAndRandomBitsAfter() {
        let date = Date(timeIntervalSince1970: 1_800_000_000.1234)
        let id = UUID.version7(at: date, random: [UInt8](repeating: 0xFF, count: 10))
        let text = id.uuidString.lowercased()
        // 1_800_000_000_123 ms = 0x01a3185c507b
        #expect(text.hasPrefix("01a3185c-507b-7"))
        #expect(text == "01a3185c-507b-7fff-bfff-ffffffffffff")
        #expect(
            UUID.version7(at: date, random: [UInt8](repeating: 0, count: 10)).uuidString.lowercased()
                == "01a3185c-507b-7000-8000-000000000000")
        // Out of range times are clamped, never a crash.
        #expect(UUID.version7(at: Date(timeIntervalSince1970: -5), random: []).uuidString.hasPrefix("00000000-0000-7"))
        #expect(UUID.version7(at: Date(timeIntervalSince1970: 1e15), random: []).uuidString.lowercased().hasPrefix("ffffffff-ffff-7"))
    }

    @Test func laterOnesSortAfterAndTwoInOneMillisecondDiffer() {
        let random = SystemRandomSource()
        var last = ""
        var start = Date(timeIntervalSince1970: 1_700_000_000)
        for _ in 0..<2_000 {
            start.addTimeInterval(0.001)
            let text = random.orderedUUID(at: start).uuidString.lowercased()
            #expect(text > last)
            last = text
        }
        let now = Date()
        let ids = Set((0..<1_000).map { _ in random.orderedUUID(at: now) })
        #expect(ids.count == 1_000)
    }
}
