import Foundation

/// A QR code symbol (ISO/IEC 18004), byte mode, for short texts such as otpauth:// URIs.
///
/// The text is encoded as its UTF-8 bytes in a single byte-mode segment (no ECI header, as authenticator apps
/// expect), in the smallest version that holds it at the requested error correction level. Of the eight data
/// masks, the one with the lowest penalty score (ISO/IEC 18004, 7.8.3) is applied.
///
/// ```swift
/// let code = try QRCode(encoding: "otpauth://totp/Latchkey:alice@example.com?secret=…&issuer=Latchkey")
/// let svg = code.svg()
/// ```
public struct QRCode: Sendable {
    /// Error correction level: roughly 7 %, 15 %, 25 % or 30 % of the codewords can be restored.
    public enum Correction: Sendable { case low, medium, quartile, high }

    /// The text does not fit in a version 40 symbol at the requested error correction level.
    public struct TooLong: Error, Sendable {
        /// Length of the text in UTF-8 bytes.
        public let byteCount: Int
        /// The most bytes a version 40 symbol holds at the requested level.
        public let capacity: Int
    }

    /// The symbol version, 1...40: the smallest that holds the text.
    public let version: Int
    /// The error correction level the symbol was made with.
    public let correction: Correction
    /// The data mask pattern applied, 0...7 (ISO/IEC 18004, Table 10).
    let mask: Int
    /// Dark (`true`) or light modules, row by row.
    private let modules: [Bool]

    /// Modules per side: 17 + 4 × version.
    public var size: Int { 17 + 4 * version }

    /// The mask penalty score of the finished symbol (see `QRMatrix.penaltyScore()`).
    var penaltyScore: Int { QRMatrix.penaltyScore(of: modules, size: size) }

    /// Encodes `text`, choosing the data mask by penalty score.
    ///
    /// - Throws: ``TooLong`` when the text does not fit in version 40 at this level.
    public init(encoding text: String, correction: Correction = .medium) throws {
        try self.init(encoding: text, correction: correction, mask: nil)
    }

    /// Encodes `text` with the given data mask (0...7), or with the best one by penalty score when `mask` is nil.
    init(encoding text: String, correction: Correction, mask: Int?) throws {
        precondition(mask.map { (0..<8).contains($0) } ?? true, "QR data masks are numbered 0 to 7")
        let bytes = Array(text.utf8)
        guard let version = (1...40).first(where: { Self.byteCapacity(version: $0, correction: correction) >= bytes.count })
        else {
            throw TooLong(byteCount: bytes.count, capacity: Self.byteCapacity(version: 40, correction: correction))
        }
        let layout = Self.blockLayout(version: version, correction: correction)
        let data = Self.dataCodewords(for: bytes, version: version, capacity: layout.dataCodewords)
        let codewords = Self.interleavedCodewords(data: data, layout: layout)

        var unmasked = QRMatrix(version: version)
        unmasked.placeCodewords(codewords)
        // Each candidate is scored as the reader would see it, format information included; on a tie the lower
        // mask number wins.
        var best: (mask: Int, symbol: QRMatrix, score: Int)?
        for candidate in mask.map({ [$0] }) ?? Array(0..<8) {
            var symbol = unmasked
            symbol.applyMask(candidate)
            symbol.drawFormatInformation(correction: correction, mask: candidate)
            let score = symbol.penaltyScore()
            if score < best?.score ?? .max { best = (candidate, symbol, score) }
        }

        self.version = version
        self.correction = correction
        self.mask = best!.mask
        self.modules = best!.symbol.modules
    }

    /// Whether the module at column `x`, row `y` (from the top-left corner) is dark. Coordinates outside the
    /// symbol are light, like the quiet zone around it.
    public func isDark(x: Int, y: Int) -> Bool {
        guard (0..<size).contains(x), (0..<size).contains(y) else { return false }
        return modules[y * size + x]
    }

    /// An SVG document: one `<path>` of dark modules on a white background, with a 4-module quiet zone,
    /// `shape-rendering="crispEdges"`, a viewBox in module units, and width/height = (size + 8) × `moduleSize` px.
    ///
    /// Colours are named rather than written `#rrggbb`, so the document can follow `data:image/svg+xml;utf-8,` in a
    /// data URL unescaped (a `#` would start the URL's fragment).
    ///
    /// - Parameter moduleSize: Pixels per module; values below 1 count as 1.
    public func svg(moduleSize: Int = 4) -> String {
        let quietZone = 4
        let side = size + 2 * quietZone
        let pixels = side * max(moduleSize, 1)
        // One rectangle per horizontal run of dark modules.
        var path = ""
        for y in 0..<size {
            var x = 0
            while x < size {
                guard isDark(x: x, y: y) else {
                    x += 1
                    continue
                }
                let start = x
                while isDark(x: x, y: y) { x += 1 }
                path += "M\(start + quietZone) \(y + quietZone)h\(x - start)v1h-\(x - start)z"
            }
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="\(pixels)" height="\(pixels)" \
            viewBox="0 0 \(side) \(side)" shape-rendering="crispEdges">\
            <rect width="\(side)" height="\(side)" fill="white"/>\
            <path d="\(path)" fill="black"/>\
            </svg>
            """
    }
}

extension QRCode {
    /// The data codewords (ISO/IEC 18004, 7.4): the byte mode indicator 0100, the character count, the bytes, a
    /// terminator of up to four zero bits, zero bits to the next byte boundary, then the pad bytes 0xEC and 0x11
    /// in turn until `capacity` codewords.
    static func dataCodewords(for bytes: [UInt8], version: Int, capacity: Int) -> [UInt8] {
        var bits = BitBuffer()
        bits.append(0b0100, count: 4)
        bits.append(bytes.count, count: characterCountBits(version: version))
        for byte in bytes { bits.append(Int(byte), count: 8) }
        bits.append(0, count: min(4, capacity * 8 - bits.count))
        bits.append(0, count: (8 - bits.count % 8) % 8)
        var codewords = bits.bytes
        var pad: UInt8 = 0xEC
        while codewords.count < capacity {
            codewords.append(pad)
            pad = pad == 0xEC ? 0x11 : 0xEC
        }
        return codewords
    }

    /// Splits the data codewords into blocks, appends each block's Reed–Solomon codewords, and interleaves them
    /// (ISO/IEC 18004, 7.6): the first data codeword of every block, then the second of every block, and so on
    /// (short blocks drop out of the last round), followed by the error correction codewords in the same way.
    static func interleavedCodewords(data: [UInt8], layout: BlockLayout) -> [UInt8] {
        let generator = ReedSolomon.generator(degree: layout.correctionPerBlock)
        var dataBlocks: [[UInt8]] = []
        var start = 0
        for index in 0..<layout.blockCount {
            let length = layout.shortBlockDataCount + (index < layout.shortBlockCount ? 0 : 1)
            dataBlocks.append(Array(data[start..<start + length]))
            start += length
        }
        let correctionBlocks = dataBlocks.map { ReedSolomon.remainder(of: $0, dividedBy: generator) }

        var result: [UInt8] = []
        result.reserveCapacity(layout.totalCodewords)
        for blocks in [dataBlocks, correctionBlocks] {
            let longest = blocks.map(\.count).max() ?? 0
            for position in 0..<longest {
                for block in blocks where position < block.count { result.append(block[position]) }
            }
        }
        return result
    }
}

/// Bits appended most significant first, read back as bytes.
struct BitBuffer {
    private(set) var bits: [Bool] = []

    var count: Int { bits.count }

    /// Appends the low `count` bits of `value`, most significant first.
    mutating func append(_ value: Int, count: Int) {
        for shift in stride(from: count - 1, through: 0, by: -1) { bits.append((value >> shift) & 1 == 1) }
    }

    /// The bits packed eight to a byte; a trailing partial byte is padded with zeros.
    var bytes: [UInt8] {
        stride(from: 0, to: bits.count, by: 8).map { start in
            bits[start..<min(start + 8, bits.count)].enumerated().reduce(UInt8(0)) { byte, bit in
                bit.element ? byte | (0x80 >> UInt8(bit.offset)) : byte
            }
        }
    }
}
