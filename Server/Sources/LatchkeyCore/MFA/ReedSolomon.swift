import Foundation

/// Reed–Solomon error correction codewords as QR codes use them (ISO/IEC 18004, 7.5.2).
///
/// Codewords are elements of GF(2⁸) built from the primitive polynomial x⁸ + x⁴ + x³ + x² + 1 (0x11D), whose
/// primitive element α is 2. The generator polynomial of degree n is (x − α⁰)(x − α¹)…(x − αⁿ⁻¹), and the error
/// correction codewords of a block are the remainder of data(x) · xⁿ divided by it.
enum ReedSolomon {
    /// `powers[i]` is αⁱ for i in 0..<255 (α²⁵⁵ = 1 again).
    private static let powers: [UInt8] = {
        var table = [UInt8](repeating: 0, count: 255)
        var value = 1
        for exponent in 0..<255 {
            table[exponent] = UInt8(value)
            value <<= 1
            if value & 0x100 != 0 { value ^= 0x11D }
        }
        return table
    }()

    /// `logarithms[v]` is the i with αⁱ = v, for v in 1...255 (`logarithms[0]` is unused).
    private static let logarithms: [Int] = {
        var table = [Int](repeating: 0, count: 256)
        for (exponent, value) in powers.enumerated() { table[Int(value)] = exponent }
        return table
    }()

    /// The product of two field elements. (Addition and subtraction are both XOR.)
    static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        if a == 0 || b == 0 { return 0 }
        return powers[(logarithms[Int(a)] + logarithms[Int(b)]) % 255]
    }

    /// The monic generator polynomial of the given degree, coefficients from the highest power down (`[0]` is 1).
    static func generator(degree: Int) -> [UInt8] {
        var polynomial: [UInt8] = [1]
        for exponent in 0..<degree {
            // Multiply by (x + αⁱ): shift up by one power, then add αⁱ times the old polynomial.
            let root = powers[exponent]
            var product = polynomial + [0]
            for (index, coefficient) in polynomial.enumerated() {
                product[index + 1] ^= multiply(coefficient, root)
            }
            polynomial = product
        }
        return polynomial
    }

    /// The error correction codewords for one block of data codewords: the remainder of data(x) · xⁿ divided by
    /// `generator`, where n = `generator.count - 1`, computed by polynomial long division one codeword at a time.
    static func remainder(of data: [UInt8], dividedBy generator: [UInt8]) -> [UInt8] {
        let degree = generator.count - 1
        var remainder = [UInt8](repeating: 0, count: degree)
        for codeword in data {
            let factor = codeword ^ remainder[0]
            remainder.removeFirst()
            remainder.append(0)
            for index in 0..<degree {
                remainder[index] ^= multiply(generator[index + 1], factor)
            }
        }
        return remainder
    }
}
