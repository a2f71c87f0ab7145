import Foundation

/// A QR code symbol under construction (ISO/IEC 18004, 7.7–7.9): its modules, and which of them are function
/// modules (finder, separator, timing and alignment patterns, format and version information, the dark module),
/// which data placement and masking leave alone.
///
/// Coordinates are `x` (column) and `y` (row) from the top-left corner.
struct QRMatrix {
    let version: Int
    let size: Int
    /// Dark (`true`) or light modules, row by row.
    private(set) var modules: [Bool]
    /// Whether each module is a function module, row by row.
    private(set) var isFunction: [Bool]

    /// An empty symbol of this version with every function pattern drawn, version information included, and the
    /// format information areas reserved (light until `drawFormatInformation`).
    init(version: Int) {
        self.version = version
        size = 17 + 4 * version
        modules = Array(repeating: false, count: size * size)
        isFunction = Array(repeating: false, count: size * size)
        drawTimingPatterns()
        drawFinderPatterns()
        drawAlignmentPatterns()
        for (first, second) in formatInformationPositions {
            setFunction(x: first.x, y: first.y, dark: false)
            setFunction(x: second.x, y: second.y, dark: false)
        }
        setFunction(x: 8, y: size - 8, dark: true)  // the dark module
        if version >= 7 { drawVersionInformation() }
    }

    subscript(x: Int, y: Int) -> Bool { modules[y * size + x] }

    private mutating func setFunction(x: Int, y: Int, dark: Bool) {
        modules[y * size + x] = dark
        isFunction[y * size + x] = true
    }

    // MARK: Function patterns

    /// Row and column 6: alternating dark and light modules, dark at even coordinates.
    private mutating func drawTimingPatterns() {
        for index in 0..<size {
            setFunction(x: 6, y: index, dark: index % 2 == 0)
            setFunction(x: index, y: 6, dark: index % 2 == 0)
        }
    }

    /// Three 7 × 7 finder patterns (dark ring, light ring, dark 3 × 3 centre) in the top-left, top-right and
    /// bottom-left corners, each with its light one-module separator towards the symbol.
    private mutating func drawFinderPatterns() {
        for (centerX, centerY) in [(3, 3), (size - 4, 3), (3, size - 4)] {
            for dy in -4...4 {
                for dx in -4...4 {
                    let x = centerX + dx
                    let y = centerY + dy
                    guard (0..<size).contains(x), (0..<size).contains(y) else { continue }
                    let ring = max(abs(dx), abs(dy))
                    setFunction(x: x, y: y, dark: ring != 2 && ring != 4)
                }
            }
        }
    }

    /// 5 × 5 alignment patterns (dark ring, light ring, dark centre) at every pair of centre coordinates, except
    /// the three corners taken by finder patterns.
    private mutating func drawAlignmentPatterns() {
        let centers = QRCode.alignmentPatternCenters(version: version)
        guard let last = centers.last else { return }
        for centerY in centers {
            for centerX in centers {
                let finderCorners = [(6, 6), (last, 6), (6, last)]
                if finderCorners.contains(where: { $0 == (centerX, centerY) }) { continue }
                for dy in -2...2 {
                    for dx in -2...2 {
                        setFunction(x: centerX + dx, y: centerY + dy, dark: max(abs(dx), abs(dy)) != 1)
                    }
                }
            }
        }
    }

    /// Where bit `i` (0 = least significant) of the 15-bit format information goes: element `i` holds its two
    /// positions, one beside the top-left finder pattern and one split between the other two (ISO/IEC 18004,
    /// Figure 25).
    var formatInformationPositions: [(first: (x: Int, y: Int), second: (x: Int, y: Int))] {
        (0..<15).map { bit in
            let first: (x: Int, y: Int)
            switch bit {
            case 0...5: first = (8, bit)  // down column 8, above the timing pattern
            case 6: first = (8, 7)
            case 7: first = (8, 8)
            case 8: first = (7, 8)
            default: first = (14 - bit, 8)  // leftwards along row 8, left of the timing pattern
            }
            // Right to left under the top-right finder, then downwards beside the bottom-left one.
            let second = bit < 8 ? (size - 1 - bit, 8) : (8, size - 15 + bit)
            return (first, second)
        }
    }

    /// Writes both copies of the format information: level and mask, BCH(15,5) protected, XOR 0x5412.
    mutating func drawFormatInformation(correction: QRCode.Correction, mask: Int) {
        let bits = Self.formatInformation(correction: correction, mask: mask)
        for (bit, (first, second)) in formatInformationPositions.enumerated() {
            let dark = (bits >> bit) & 1 == 1
            setFunction(x: first.x, y: first.y, dark: dark)
            setFunction(x: second.x, y: second.y, dark: dark)
        }
    }

    /// Both copies of the 18-bit version information (versions 7 and up): a 6 × 3 block left of the bottom-left
    /// finder pattern and its transpose above the top-right one. Bit `i` goes to column `i / 3` and row
    /// `size - 11 + i % 3` of the first (ISO/IEC 18004, Figure 27).
    private mutating func drawVersionInformation() {
        let bits = Self.versionInformation(version: version)
        for bit in 0..<18 {
            let dark = (bits >> bit) & 1 == 1
            let across = bit / 3
            let along = size - 11 + bit % 3
            setFunction(x: across, y: along, dark: dark)
            setFunction(x: along, y: across, dark: dark)
        }
    }

    /// The 15-bit format information (ISO/IEC 18004, 7.9.1): two level bits and three mask bits, ten BCH bits from
    /// the generator x¹⁰ + x⁸ + x⁵ + x⁴ + x² + x + 1, masked with 101010000010010 so it is never all zero.
    static func formatInformation(correction: QRCode.Correction, mask: Int) -> Int {
        bchCode(correction.formatBits << 3 | mask, generator: 0b101_0011_0111, degree: 10) ^ 0b101_0100_0001_0010
    }

    /// The 18-bit version information (ISO/IEC 18004, 7.10): six version bits and twelve BCH bits from the
    /// generator x¹² + x¹¹ + x¹⁰ + x⁹ + x⁸ + x⁵ + x² + 1.
    static func versionInformation(version: Int) -> Int {
        bchCode(version, generator: 0b1_1111_0010_0101, degree: 12)
    }

    /// `data` followed by the remainder of data(x) · x^degree divided by `generator`, all polynomials over GF(2)
    /// written as bits.
    static func bchCode(_ data: Int, generator: Int, degree: Int) -> Int {
        func bitLength(_ value: Int) -> Int { Int.bitWidth - value.leadingZeroBitCount }
        var remainder = data << degree
        while bitLength(remainder) > degree {
            remainder ^= generator << (bitLength(remainder) - bitLength(generator))
        }
        return data << degree | remainder
    }

    // MARK: Data

    /// Places the codewords' bits, most significant first, in the modules left free by the function patterns
    /// (ISO/IEC 18004, 7.7.3): in two-module-wide columns from the right edge, alternately upwards and downwards,
    /// right module before left, stepping over the vertical timing pattern. Any modules left over (remainder
    /// bits) stay light.
    mutating func placeCodewords(_ codewords: [UInt8]) {
        var bitIndex = 0
        var upwards = true
        var right = size - 1
        while right > 0 {
            if right == 6 { right = 5 }
            for step in 0..<size {
                let y = upwards ? size - 1 - step : step
                for x in [right, right - 1] where !isFunction[y * size + x] {
                    if bitIndex < codewords.count * 8 {
                        modules[y * size + x] = (codewords[bitIndex / 8] >> (7 - bitIndex % 8)) & 1 == 1
                        bitIndex += 1
                    }
                }
            }
            upwards.toggle()
            right -= 2
        }
    }

    /// Inverts every non-function module for which the data mask pattern's condition holds (ISO/IEC 18004,
    /// Table 10, where i is the row and j the column).
    mutating func applyMask(_ mask: Int) {
        for y in 0..<size {
            for x in 0..<size where !isFunction[y * size + x] && Self.maskCondition(mask, x: x, y: y) {
                modules[y * size + x].toggle()
            }
        }
    }

    static func maskCondition(_ mask: Int, x: Int, y: Int) -> Bool {
        switch mask {
        case 0: (y + x) % 2 == 0
        case 1: y % 2 == 0
        case 2: x % 3 == 0
        case 3: (y + x) % 3 == 0
        case 4: (y / 2 + x / 3) % 2 == 0
        case 5: (y * x) % 2 + (y * x) % 3 == 0
        case 6: ((y * x) % 2 + (y * x) % 3) % 2 == 0
        default: ((y + x) % 2 + (y * x) % 3) % 2 == 0
        }
    }

    // MARK: Mask evaluation

    /// The penalty score of the symbol (ISO/IEC 18004, 7.8.3.1, Table 11); lower is better.
    ///
    /// - N1: 3 + (n − 5) for each run of n ≥ 5 same-coloured modules in a row or column.
    /// - N2: 3 for each 2 × 2 block of one colour (blocks may overlap).
    /// - N3: 40 for each dark-light-dark-dark-dark-light-dark (1:1:3:1:1) pattern in a row or column with four
    ///   light modules before or after it; outside the symbol counts as light (the quiet zone).
    /// - N4: 10 for each full 5 % by which the share of dark modules differs from 50 %.
    func penaltyScore() -> Int {
        Self.penaltyScore(of: modules, size: size)
    }

    /// The penalty score of `size` × `size` modules given row by row.
    static func penaltyScore(of modules: [Bool], size: Int) -> Int {
        var score = 0
        for index in 0..<size {
            let row = Array(modules[index * size..<(index + 1) * size])
            let column = stride(from: index, to: modules.count, by: size).map { modules[$0] }
            score += runPenalty(row) + runPenalty(column) + finderLikePenalty(row) + finderLikePenalty(column)
        }
        for y in 0..<size - 1 {
            for x in 0..<size - 1 {
                let color = modules[y * size + x]
                if modules[y * size + x + 1] == color && modules[(y + 1) * size + x] == color
                    && modules[(y + 1) * size + x + 1] == color
                {
                    score += 3
                }
            }
        }
        let dark = modules.count(where: { $0 })
        let total = modules.count
        // |dark / total − 1/2| in whole steps of 5 %, i.e. of 1/20.
        score += 10 * (abs(20 * dark - 10 * total) / total)
        return score
    }

    /// N1 for one row or column.
    private static func runPenalty(_ line: [Bool]) -> Int {
        var score = 0
        var runLength = 1
        for index in 1...line.count {
            if index < line.count && line[index] == line[index - 1] {
                runLength += 1
            } else {
                if runLength >= 5 { score += 3 + (runLength - 5) }
                runLength = 1
            }
        }
        return score
    }

    /// N3 for one row or column.
    private static func finderLikePenalty(_ line: [Bool]) -> Int {
        func isLight(_ range: Range<Int>) -> Bool {
            for index in range where line.indices.contains(index) && line[index] { return false }
            return true
        }
        var score = 0
        for start in 0...(line.count - 7) {
            let finderLike =
                line[start] && !line[start + 1] && line[start + 2] && line[start + 3] && line[start + 4]
                && !line[start + 5] && line[start + 6]
            if finderLike && (isLight(start - 4..<start) || isLight(start + 7..<start + 11)) { score += 40 }
        }
        return score
    }
}
