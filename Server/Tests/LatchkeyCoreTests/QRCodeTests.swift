import Foundation
import Testing

@testable import LatchkeyCore

@Suite struct QRCodeTests {
    static let sampleURI =
        "otpauth://totp/Latchkey:alice@example.com?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=Latchkey&algorithm=SHA1"
        + "&digits=6&period=30"

    // MARK: Version choice

    /// Byte-mode capacities from ISO/IEC 18004 Table 7: `bytes` fit in `version`, one more byte does not.
    @Test(arguments: [
        (QRCode.Correction.low, 1, 17), (.medium, 1, 14), (.quartile, 1, 11), (.high, 1, 7),
        (.low, 2, 32), (.medium, 2, 26), (.quartile, 2, 20), (.high, 2, 14),
        (.low, 7, 154), (.medium, 7, 122), (.quartile, 7, 86), (.high, 7, 64),
        (.low, 9, 230), (.medium, 9, 180), (.quartile, 9, 130), (.high, 9, 98),
        (.low, 10, 271), (.medium, 10, 213), (.quartile, 10, 151), (.high, 10, 119),
        (.low, 27, 1465), (.medium, 27, 1125), (.quartile, 27, 805), (.high, 27, 625),
        (.low, 40, 2953), (.medium, 40, 2331), (.quartile, 40, 1663), (.high, 40, 1273),
    ])
    func smallestVersionThatFits(correction: QRCode.Correction, version: Int, bytes: Int) throws {
        let fits = try QRCode(encoding: String(repeating: "a", count: bytes), correction: correction)
        #expect(fits.version == version)
        #expect(fits.size == 17 + 4 * version)
        let oneMore = String(repeating: "a", count: bytes + 1)
        if version < 40 {
            #expect(try QRCode(encoding: oneMore, correction: correction).version == version + 1)
        } else {
            #expect(throws: QRCode.TooLong.self) { try QRCode(encoding: oneMore, correction: correction) }
        }
    }

    @Test func lengthIsCountedInUTF8Bytes() throws {
        #expect(try QRCode(encoding: String(repeating: "é", count: 8), correction: .low).version == 1)  // 16 bytes
        #expect(try QRCode(encoding: String(repeating: "é", count: 9), correction: .low).version == 2)  // 18 bytes
        #expect(try QRCode(encoding: "", correction: .high).version == 1)
    }

    @Test func defaultLevelIsMedium() throws {
        let code = try QRCode(encoding: Self.sampleURI)
        #expect(code.correction == .medium)
        #expect(code.version == 8)  // 131 bytes: more than version 7-M's 122, within version 8-M's 152
    }

    @Test func tooLongText() {
        let text = String(repeating: "x", count: 3000)
        let low = #expect(throws: QRCode.TooLong.self) { try QRCode(encoding: text, correction: .low) }
        #expect(low?.byteCount == 3000)
        #expect(low?.capacity == 2953)
        let medium = #expect(throws: QRCode.TooLong.self) { try QRCode(encoding: text) }
        #expect(medium?.capacity == 2331)
    }

    // MARK: Structure

    @Test(arguments: [1, 2, 7, 21, 40])
    func finderTimingAndDarkModule(version: Int) throws {
        let bytes = QRCode.byteCapacity(version: version, correction: .quartile)
        let code = try QRCode(encoding: String(repeating: "Z", count: bytes), correction: .quartile)
        try #require(code.version == version)
        let size = code.size
        for (left, top) in [(0, 0), (size - 7, 0), (0, size - 7)] {
            for dy in -1...7 {
                for dx in -1...7 {
                    let x = left + dx
                    let y = top + dy
                    guard (0..<size).contains(x), (0..<size).contains(y) else { continue }
                    // A dark 7 × 7 ring, a light 5 × 5 ring, a dark 3 × 3 centre, inside a light separator.
                    let ring = max(abs(dx - 3), abs(dy - 3))
                    #expect(code.isDark(x: x, y: y) == (ring == 0 || ring == 1 || ring == 3), "finder at \(left),\(top): \(dx),\(dy)")
                }
            }
        }
        for index in 8..<(size - 8) {
            #expect(code.isDark(x: index, y: 6) == index.isMultiple(of: 2))
            #expect(code.isDark(x: 6, y: index) == index.isMultiple(of: 2))
        }
        #expect(code.isDark(x: 8, y: size - 8))
        #expect(!code.isDark(x: -1, y: 0) && !code.isDark(x: size, y: size - 1))
    }

    /// The 15 format bits, most significant first, as ISO/IEC 18004 Figure 25 places the two copies.
    static func formatBits(of code: QRCode) -> (first: Int, second: Int) {
        let size = code.size
        let first: [(Int, Int)] =
            (0...5).map { ($0, 8) } + [(7, 8), (8, 8), (8, 7)] + (0...5).reversed().map { (8, $0) }
        let second: [(Int, Int)] = (1...7).map { (8, size - $0) } + (8...15).reversed().map { (size - $0 + 7, 8) }
        func read(_ positions: [(Int, Int)]) -> Int {
            positions.reduce(0) { bits, position in bits << 1 | (code.isDark(x: position.0, y: position.1) ? 1 : 0) }
        }
        return (read(first), read(second))
    }

    /// The remainder of `word` divided by `generator`, polynomials over GF(2) as bits.
    static func remainder(_ word: Int, _ generator: Int) -> Int {
        var word = word
        let degree = Int.bitWidth - generator.leadingZeroBitCount - 1
        for shift in stride(from: Int.bitWidth - word.leadingZeroBitCount - 1, through: degree, by: -1)
        where word >> shift & 1 == 1 {
            word ^= generator << (shift - degree)
        }
        return word
    }

    @Test(arguments: [QRCode.Correction.low, .medium, .quartile, .high], 0..<8)
    func formatInformationDecodes(correction: QRCode.Correction, mask: Int) throws {
        let code = try QRCode(encoding: "otpauth://totp/Latchkey:bob", correction: correction, mask: mask)
        let bits = Self.formatBits(of: code)
        #expect(bits.first == bits.second)
        let unmasked = bits.first ^ 0b101_0100_0001_0010
        #expect(Self.remainder(unmasked, 0b101_0011_0111) == 0, "BCH(15,5) check")
        let levels: [Int: QRCode.Correction] = [0b01: .low, 0b00: .medium, 0b11: .quartile, 0b10: .high]
        #expect(levels[unmasked >> 13] == correction)
        #expect((unmasked >> 10) & 0b111 == mask)
        #expect(code.mask == mask)
    }

    @Test(arguments: [QRCode.Correction.low, .high])
    func automaticMaskIsRecordedInFormatInformation(correction: QRCode.Correction) throws {
        let code = try QRCode(encoding: Self.sampleURI, correction: correction)
        let unmasked = Self.formatBits(of: code).first ^ 0b101_0100_0001_0010
        #expect((unmasked >> 10) & 0b111 == code.mask)
    }

    @Test(arguments: [7, 8, 21, 32, 40])
    func versionInformationDecodes(version: Int) throws {
        let bytes = QRCode.byteCapacity(version: version, correction: .low)
        let code = try QRCode(encoding: String(repeating: "v", count: bytes), correction: .low)
        try #require(code.version == version)
        // ISO/IEC 18004 Figure 27: bit i at column i / 3, row size - 11 + i % 3 (bottom left), and transposed.
        var bottomLeft = 0
        var topRight = 0
        for bit in (0..<18).reversed() {
            bottomLeft = bottomLeft << 1 | (code.isDark(x: bit / 3, y: code.size - 11 + bit % 3) ? 1 : 0)
            topRight = topRight << 1 | (code.isDark(x: code.size - 11 + bit % 3, y: bit / 3) ? 1 : 0)
        }
        #expect(bottomLeft == topRight)
        #expect(bottomLeft >> 12 == version)
        #expect(Self.remainder(bottomLeft, 0b1_1111_0010_0101) == 0, "BCH(18,6) check")
    }

    /// ISO/IEC 18004 Table 1: codewords per version, and the remainder bits left over.
    @Test func dataModulesMatchCodewordCounts() {
        let remainderBits =
            [0] + Array(repeating: 7, count: 5) + Array(repeating: 0, count: 7) + Array(repeating: 3, count: 7)
            + Array(repeating: 4, count: 7) + Array(repeating: 3, count: 7) + Array(repeating: 0, count: 6)
        for version in 1...40 {
            let matrix = QRMatrix(version: version)
            let dataModules = matrix.isFunction.count(where: { !$0 })
            #expect(dataModules == QRCode.totalCodewords(version: version) * 8 + remainderBits[version - 1], "version \(version)")
        }
        #expect([1, 2, 7, 10, 27, 40].map { QRCode.totalCodewords(version: $0) } == [26, 44, 196, 346, 1828, 3706])
    }

    @Test func alignmentPatternCentres() {
        // Spot checks against ISO/IEC 18004 Table E.1, the version 32 exception included.
        #expect(QRCode.alignmentPatternCenters(version: 1) == [])
        #expect(QRCode.alignmentPatternCenters(version: 2) == [6, 18])
        #expect(QRCode.alignmentPatternCenters(version: 7) == [6, 22, 38])
        #expect(QRCode.alignmentPatternCenters(version: 15) == [6, 26, 48, 70])
        #expect(QRCode.alignmentPatternCenters(version: 32) == [6, 34, 60, 86, 112, 138])
        #expect(QRCode.alignmentPatternCenters(version: 36) == [6, 24, 50, 76, 102, 128, 154])
        #expect(QRCode.alignmentPatternCenters(version: 40) == [6, 30, 58, 86, 114, 142, 170])
    }

    // MARK: Codewords

    /// The worked example of ISO/IEC 18004 Annex I: "01234567" as version 1-M.
    @Test func reedSolomonMatchesTheStandardsExample() {
        let data: [UInt8] = [0x10, 0x20, 0x0C, 0x56, 0x61, 0x80, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11]
        let correction = ReedSolomon.remainder(of: data, dividedBy: ReedSolomon.generator(degree: 10))
        #expect(correction == [0xA5, 0x24, 0xD4, 0xC1, 0xED, 0x36, 0xC7, 0x87, 0x2C, 0x55])
    }

    @Test func dataCodewordsArePaddedAlternately() {
        // Mode 0100, count 00000001, "A" 01000001, terminator 0000, then 0xEC, 0x11, ...
        let codewords = QRCode.dataCodewords(for: Array("A".utf8), version: 1, capacity: 16)
        #expect(codewords == [0x40, 0x14, 0x10] + Array(repeating: [0xEC, 0x11], count: 6).joined() + [0xEC])
        // Version 10 and up count bytes in 16 bits.
        #expect(QRCode.dataCodewords(for: [0xFF], version: 10, capacity: 4) == [0x40, 0x00, 0x1F, 0xF0])
    }

    // MARK: Masking

    @Test func penaltyRules() {
        // All light, 21 × 21: N1 42 lines × (3 + 16), N2 20 × 20 × 3, N4 50 % off → 10 × 10.
        #expect(QRMatrix.penaltyScore(of: Array(repeating: false, count: 21 * 21), size: 21) == 42 * 19 + 1200 + 100)
        // A checkerboard has no runs, blocks or finder-like patterns, and 221 of 441 modules dark.
        let checkerboard = (0..<(21 * 21)).map { ($0 / 21 + $0 % 21).isMultiple(of: 2) }
        #expect(QRMatrix.penaltyScore(of: checkerboard, size: 21) == 0)
        // Darkening x = 1 and 3 of its top row makes one run of exactly five: 3 points, nothing else.
        var runOfFive = checkerboard
        runOfFive[1] = true
        runOfFive[3] = true
        #expect(QRMatrix.penaltyScore(of: runOfFive, size: 21) == 3)
        // An all-light field with 1011101 at the start of row 0 (dark at x = 0, 2, 3, 4, 6).
        var withPattern = Array(repeating: false, count: 21 * 21)
        for x in [0, 2, 3, 4, 6] { withPattern[x] = true }
        let allLight = 42 * 19 + 1200 + 100
        let rowRuns = 12 - 19  // row 0: a light run of 14 rather than 21
        let columnRuns = 5 * (18 - 19)  // the five dark columns: a light run of 20 rather than 21
        let blocks = -3 * 7  // 2 × 2 blocks at x = 0...6 in rows 0–1 now hold a dark module
        let finderLike = 40  // once, though light on both sides
        let balance = 90 - 100  // 5 of 441 dark: 48.9 % off, 9 whole steps of 5 %
        #expect(QRMatrix.penaltyScore(of: withPattern, size: 21) == allLight + rowRuns + columnRuns + blocks + finderLike + balance)
    }

    @Test(arguments: [QRCode.Correction.low, .medium, .quartile, .high])
    func automaticMaskHasTheLowestPenalty(correction: QRCode.Correction) throws {
        let automatic = try QRCode(encoding: Self.sampleURI, correction: correction)
        let scores = try (0..<8).map { try QRCode(encoding: Self.sampleURI, correction: correction, mask: $0).penaltyScore }
        #expect(automatic.mask == scores.firstIndex(of: scores.min()!))
        let forced = try QRCode(encoding: Self.sampleURI, correction: correction, mask: automatic.mask)
        #expect(Self.rows(of: forced) == Self.rows(of: automatic))
    }

    // MARK: Whole symbols

    static func rows(of code: QRCode) -> [String] {
        (0..<code.size).map { y in String((0..<code.size).map { code.isDark(x: $0, y: y) ? "#" : "." }) }
    }

    /// Made with Python segno 1.6.6: `segno.make(sampleURI, error='m', mode='byte', mask=6, micro=False, version=8,
    /// boost_error=False)`, with segno's `encoder.write_padding_bits` fixed to pad only up to a codeword boundary
    /// (segno issue #148: it appends a whole 0x00 codeword when the bit stream is already on one). Version 8-M has
    /// version information and two short and two long blocks.
    @Test func matchesSegnoVersion8Medium() throws {
        let code = try QRCode(encoding: Self.sampleURI, correction: .medium, mask: 6)
        #expect(code.version == 8)
        #expect(
            Self.rows(of: code) == [
                "#######.###.##.##.#...###..#...#.##.....#.#######",
                "#.....#.###.##.#...##.#..####.#..##.#.###.#.....#",
                "#.###.#.###..######.##..##.#.####..#.#.##.#.###.#",
                "#.###.#..##..###.#..####.#.####.#.####.#..#.###.#",
                "#.###.#.##.#.##.#.##.########.###...##....#.###.#",
                "#.....#..#######.#..#.#...#.#...#..####...#.....#",
                "#######.#.#.#.#.#.#.#.#.#.#.#.#.#.#.#.#.#.#######",
                ".........##.....##...##...#...#.#.###.###........",
                "#..######.#.######.##.#####.#.#...####...#..#.###",
                "#.#.#...#.###.##...###...##.###.#.##..###.###....",
                ".##..##.##....##..#........#.##...#.##.....#..#.#",
                ".####..##..#..##.#.#.##...#...#.######.##.#.#.#..",
                "....####.####...#.#.#.####..##..###.#.#..####..##",
                "...#.#.........######..##.##.##..#.#..##.#####.#.",
                "##...#####..####.##...##.#.#...###.#.##....#...##",
                "##.#.#..#...#.#####.#.###..##.###.##..#.###..###.",
                ".###..##.........#......####..#.##.##...#.#####..",
                "#####..#.#...##..##...#..#.#####..#.##.##.######.",
                "####..###..#....#...#.#.#..##.#####..#..##.####.#",
                ".###.#.......##..#####.#.####.........##.##..#.##",
                "......#...#.#.....##.#.##...###...####.#.........",
                "..#.....#..##.#.##.##.###.##..#####.###.######..#",
                ".#########.##..##..##.#####.#..##.#.....#####.#.#",
                "###.#...##.##...##.#.##...####....#.#####...#####",
                "###.#.#.#..##.#...##.##.#.#.#...#...#.#.#.#.##.##",
                ".####...##.###.#..#.###...#...#.##.#..###...#....",
                "#########.#.##..#..#.#######.#...##.##.######..##",
                ".##..#...########..#..#####...#...#..###...####..",
                "...##.###.#.#.##.#..#...###...###.######..##.....",
                "###.##.#.######.#####..###..#.#..#####..##.....#.",
                "..##.##.##.#......##.#..#.#..#.#.#.##..#.##...#.#",
                "######.#.#.###.#..#..#..###..#.#####.#.##..###.#.",
                "#.....####.#.####...#....#......##..#..#........#",
                "###.#..#.#.#...#..#.#####....#...#..#####.###.#..",
                "##....##.#####.###.########.####.#..#..#.##.##..#",
                "###.#..##....#..###..###.#...#..########....#####",
                "...##.###..#.#...#.###..#.#.##..###.#..####..#..#",
                "...##...#...###.###.#.#########..#.##.##.#..#####",
                ".#...######....##.##...#....#..###.#..#####.#.###",
                ".###......####.##...#...#..##.#.#####..###.#..#.#",
                "###...##....##..##....#####....###..#..######.##.",
                "........####.####..#..#...#.#.#..###.#..#...#.##.",
                "#######.##....##.######.#.###.###.#####.#.#.#####",
                "#.....#.##...#.#..###.#...#.##.#..##.##.#...##.##",
                "#.###.#.#...##........#####.#.#..######.#####.###",
                "#.###.#.##...#......###..#.#####.##.#.##...#.##.#",
                "#.###.#.....#....######.#..#.#..###.##....####.#.",
                "#.....#.....#.##......##########..##.##...##.####",
                "#######.##.##..#.####.#######.###.#.#...#..##...#",
            ])
    }

    /// As above, for each mask: `segno.make("otpauth", error='h', mode='byte', mask=N, micro=False, version=1,
    /// boost_error=False)`, four symbols to a row of strings (masks 0–3, then 4–7).
    @Test func matchesSegnoVersion1HighWithEveryMask() throws {
        let masks0to3 = [
            "#######.##.##.####### #######.....#.####### #######.#.###.####### #######...###.#######",
            "#.....#.....#.#.....# #.....#.##.##.#.....# #.....#.#..#..#.....# #.....#..#..#.#.....#",
            "#.###.#.......#.###.# #.###.#.##.#..#.###.# #.###.#.###...#.###.# #.###.#.....#.#.###.#",
            "#.###.#.##.#..#.###.# #.###.#.#.....#.###.# #.###.#..#..#.#.###.# #.###.#..#..#.#.###.#",
            "#.###.#...#.#.#.###.# #.###.#.#####.#.###.# #.###.#..#..#.#.###.# #.###.#.#..#..#.###.#",
            "#.....#....#..#.....# #.....#.##....#.....# #.....#.#...#.#.....# #.....#..##...#.....#",
            "#######.#.#.#.####### #######.#.#.#.####### #######.#.#.#.####### #######.#.#.#.#######",
            ".........#.#......... ..................... ........##..#........ ........#..#.........",
            "..#.###.###..#...#..# ..#..####.##.#.#####. ..###.#.#....###..### ..##..#####.###.#....",
            ".#..#...#..#####....# ...###.###..#.#..#.## #...##.##.....##.#### #...##.##.....##.####",
            "##.##.#####.#...#.### #...###.#.####.####.# ###...##....#.##..##. .#.#.#####.#.....#.##",
            "#....#..##.###.#....# ##.#...##...#....#.## .#.....###.....#.#### #..##...#.#.##..##..#",
            "#...###..#....#..#.#. ##.##.##...#.###..... #.##.##.#.#....###.## #.##.##.#.#....###.##",
            "........#.###..###.## ........###.##..#...# ........#.#..#.##.#.# ........#######.##...",
            "#######...#...###.### #######.####.##.###.# #######..#........##. #######.#.#.##.##....",
            "#.....#.###....#....# #.....#.#.##.#...#.## #.....#..#####.#.#### #.....#..#####.#.####",
            "#.###.#.##.##.###..## #.###.#.....###.##..# #.###.#.#.###......#. #.###.#..##...##.####",
            "#.###.#..###..#.##.#. #.###.#...#..####.... #.###.#.###.###.#.#.. #.###.#.#.....##...#.",
            "#.###.#.###..######.# #.###.#.#.##..#.#.### #.###.#.#....#...##.. #.###.#.#....#...##..",
            "#.....#.......#....#. #.....#..#.#.###.#... #.....#....####..##.. #.....#..#...#.#....#",
            "#######...#..#####.## #######..###..#.#...# #######..#...#...#.#. #######...#.#..####..",
        ]
        let masks4to7 = [
            "#######..####.####### #######.#...#.####### #######.....#.####### #######.##.##.#######",
            "#.....#.##.#..#.....# #.....#..#.#..#.....# #.....#..#.#..#.....# #.....#.#.#.#.#.....#",
            "#.###.#..#.##.#.###.# #.###.#.###...#.###.# #.###.#.##....#.###.# #.###.#....#..#.###.#",
            "#.###.#..###..#.###.# #.###.#...#.#.#.###.# #.###.#.#.#.#.#.###.# #.###.#.##.#..#.###.#",
            "#.###.#.....#.#.###.# #.###.#.##..#.#.###.# #.###.#..#.##.#.###.# #.###.#.#...#.#.###.#",
            "#.....#.##..#.#.....# #.....#..#..#.#.....# #.....#..####.#.....# #.....#.#.....#.....#",
            "#######.#.#.#.####### #######.#.#.#.####### #######.#.#.#.####### #######.#.#.#.#######",
            "........####......... ........#...#........ ............#........ .........###.........",
            "....####.#....##...#. .....##.......#.#.#.# ...##.##..#......##.. ...#..#..###...###.##",
            "######...#...#...##.. #.##.#.#.##.....####. #.##.#.#.##.....####. .#..#...#..#####....#",
            ".##.####..##..####.#. ###...##....#.##..##. ##...####..##..#.#### #..#..#.##..##....#.#",
            "##..##.######..##..## .#.#...##........#### .#.###.##.##....#.### #.#......#..####.#...",
            "##...###.##..##.##... ##.##.##...#.###..... ##.##.##...#.###..... #...###..#....#..#.#.",
            "........###...#.#.##. ........###..#..#.#.# ........###...#.#.##. ........#..###.#.#..#",
            "#######.#####...##.#. #######..#........##. #######.###..#..#.#.. #######...##...#####.",
            "#.....#.##...#.##..## #.....#.#..####.####. #.....#....####.####. #.....#..##....#....#",
            "#.###.#.########....# #.###.#...###......#. #.###.#.#.#.#.#..#.## #.###.#..#######....#",
            "#.###.#...#.#..##.### #.###.#...#.#####.#.. #.###.#.#..#####.##.. #.###.#.###.....#..##",
            "#.###.#...####..#.... #.###.#...##..#.#.### #.###.#...##..#.#.### #.###.#..##..######.#",
            "#.....#...#..##.#.... #.....#..#.#####.##.. #.....#..#.##..#.#### #.....#...#..##.#....",
            "#######.......##.#..# #######..#...#...#.#. #######..##.....##... #######...##.#.##..#.",
        ]
        for mask in 0..<8 {
            let code = try QRCode(encoding: "otpauth", correction: .high, mask: mask)
            #expect(code.version == 1)
            let expected = (mask < 4 ? masks0to3 : masks4to7).map { row in
                String(row.split(separator: " ")[mask % 4])
            }
            #expect(Self.rows(of: code) == expected, "mask \(mask)")
        }
    }

    // MARK: SVG

    @Test func svgDocument() throws {
        let code = try QRCode(encoding: Self.sampleURI)
        let svg = code.svg(moduleSize: 5)
        let side = code.size + 8
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(svg.contains("width=\"\(side * 5)\" height=\"\(side * 5)\" viewBox=\"0 0 \(side) \(side)\""))
        #expect(svg.contains("shape-rendering=\"crispEdges\""))
        #expect(svg.contains("<rect width=\"\(side)\" height=\"\(side)\" fill=\"white\"/>"))
        #expect(svg.contains("fill=\"black\""))
        #expect(!svg.contains("#"))  // safe to put after "data:image/svg+xml;utf-8," unescaped
        #expect(svg.components(separatedBy: "<path ").count == 2)
        #expect(svg.hasSuffix("</svg>"))
        #expect(code.svg().contains("width=\"\(side * 4)\""))

        // Every dark module, and nothing else, is covered by one "Mx yhNv1h-Nz" run, offset by the quiet zone.
        let path = try #require(svg.split(separator: "d=\"").last?.split(separator: "\"").first)
        var covered = Set<[Int]>()
        var coveredCount = 0
        for run in path.split(separator: "z") {
            let numbers = run.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
            try #require(numbers.count == 5 && numbers[2] == numbers[4] && numbers[3] == 1)
            for x in numbers[0]..<(numbers[0] + numbers[2]) { covered.insert([x - 4, numbers[1] - 4]) }
            coveredCount += numbers[2]
        }
        var dark = Set<[Int]>()
        for y in 0..<code.size {
            for x in 0..<code.size where code.isDark(x: x, y: y) { dark.insert([x, y]) }
        }
        #expect(covered == dark)
        #expect(coveredCount == dark.count)  // no module drawn twice
    }
}
