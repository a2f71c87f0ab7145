import Foundation

/// Sizes and layouts that depend only on the version and the error correction level (ISO/IEC 18004, Tables 1, 9
/// and E.1).
extension QRCode {
    /// How the codewords of one version and level are split into Reed–Solomon blocks (ISO/IEC 18004, Table 9).
    ///
    /// Every block carries the same number of error correction codewords. When the data codewords do not divide
    /// evenly, the first blocks ("short") hold one data codeword fewer than the remaining ones ("long").
    struct BlockLayout: Equatable {
        /// All codewords in the symbol, data and error correction.
        let totalCodewords: Int
        /// Error correction codewords in each block.
        let correctionPerBlock: Int
        /// Number of blocks.
        let blockCount: Int

        /// Data codewords in the whole symbol.
        var dataCodewords: Int { totalCodewords - correctionPerBlock * blockCount }
        /// Data codewords in each of the first, shorter blocks.
        var shortBlockDataCount: Int { totalCodewords / blockCount - correctionPerBlock }
        /// How many blocks are short; the rest hold `shortBlockDataCount + 1` data codewords.
        var shortBlockCount: Int { blockCount - totalCodewords % blockCount }
    }

    static func blockLayout(version: Int, correction: Correction) -> BlockLayout {
        let row = correction.tableRow
        return BlockLayout(
            totalCodewords: totalCodewords(version: version),
            correctionPerBlock: correctionCodewordsPerBlock[row][version - 1],
            blockCount: blockCounts[row][version - 1]
        )
    }

    /// The most bytes of text a symbol of this version and level holds in byte mode: what is left of the data
    /// codewords after the 4-bit mode indicator and the character count.
    static func byteCapacity(version: Int, correction: Correction) -> Int {
        let dataBits = blockLayout(version: version, correction: correction).dataCodewords * 8
        return (dataBits - 4 - characterCountBits(version: version)) / 8
    }

    /// Length of the byte mode character count indicator (ISO/IEC 18004, Table 3).
    static func characterCountBits(version: Int) -> Int {
        version <= 9 ? 8 : 16
    }

    /// Codewords in a symbol: its modules, less the function patterns and the format and version information, in
    /// whole bytes (the few bits left over are "remainder bits"). Matches ISO/IEC 18004, Table 1.
    static func totalCodewords(version: Int) -> Int {
        let size = 17 + 4 * version
        var modules = size * size
        modules -= 3 * 8 * 8  // finder patterns with their separators
        modules -= 2 * (size - 16)  // timing patterns, between the separators
        let alignmentCount = alignmentPatternCenters(version: version).count
        if alignmentCount > 0 {
            // All centre combinations but the three under finder patterns; those on row or column 6 share
            // 5 modules with a timing pattern.
            modules -= 25 * (alignmentCount * alignmentCount - 3) - 10 * (alignmentCount - 2)
        }
        modules -= 2 * 15 + 1  // two copies of the format information, and the dark module
        if version >= 7 { modules -= 2 * 18 }  // two copies of the version information
        return modules / 8
    }

    /// Row and column coordinates of alignment pattern centres (ISO/IEC 18004, Table E.1); a pattern sits at every
    /// pair of them except the three that would overlap a finder pattern.
    ///
    /// The first is always 6 and the last `size - 7`; those in between are evenly spaced by an even step, counted
    /// back from the last, so any slack falls in the first gap. Version 32 is the one exception the table makes
    /// to that rule (step 26 rather than 28).
    static func alignmentPatternCenters(version: Int) -> [Int] {
        guard version >= 2 else { return [] }
        let count = version / 7 + 2
        let last = 17 + 4 * version - 7
        let gaps = count - 1
        // The smallest even step with 6 + gaps * step >= last.
        let step = version == 32 ? 26 : ((last - 6) + 2 * gaps - 1) / (2 * gaps) * 2
        return [6] + (0..<gaps).reversed().map { last - $0 * step }
    }

    /// Error correction codewords per block, by level (L, M, Q, H) and version 1–40 (ISO/IEC 18004, Table 9).
    private static let correctionCodewordsPerBlock: [[Int]] = [
        [
            7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28,
            28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
        ],
        [
            10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26,
            26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28,
        ],
        [
            13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30,
            28, 30, 30, 30, 30, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
        ],
        [
            17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28,
            30, 24, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
        ],
    ]

    /// Number of error correction blocks, by level (L, M, Q, H) and version 1–40 (ISO/IEC 18004, Table 9).
    private static let blockCounts: [[Int]] = [
        [
            1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8,
            8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25,
        ],
        [
            1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16,
            17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49,
        ],
        [
            1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20,
            23, 23, 25, 27, 29, 34, 34, 35, 38, 40, 43, 45, 48, 51, 53, 56, 59, 62, 65, 68,
        ],
        [
            1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25,
            25, 34, 30, 32, 35, 37, 40, 42, 45, 48, 51, 54, 57, 60, 63, 66, 70, 74, 77, 81,
        ],
    ]
}

extension QRCode.Correction {
    /// Row of this level in the tables above.
    var tableRow: Int {
        switch self {
        case .low: 0
        case .medium: 1
        case .quartile: 2
        case .high: 3
        }
    }

    /// The two bits that stand for this level in the format information (ISO/IEC 18004, Table 12).
    var formatBits: Int {
        switch self {
        case .low: 0b01
        case .medium: 0b00
        case .quartile: 0b11
        case .high: 0b10
        }
    }
}
