import Foundation

/// What a vault PIN must be: digits only, 6 to 12 of them by default, and not one of the PINs
/// people pick first (a repeated digit, a run like `123456`, a repeated pair or triple, or one of
/// the most common six-digit PINs).
public struct PINPolicy: Sendable, Equatable {
    /// The fewest digits (NIST SP 800-63B asks for at least 6).
    public var minimumLength: Int
    /// The most digits.
    public var maximumLength: Int

    /// Creates a policy.
    public init(minimumLength: Int = 6, maximumLength: Int = 12) {
        self.minimumLength = minimumLength
        self.maximumLength = maximumLength
    }

    /// The most common six-digit PINs beyond the patterns checked below (from published PIN
    /// frequency studies).
    static let common: Set<String> = [
        "159753", "852456", "147258", "258369", "789456", "456123", "741852", "963852", "951753", "357159",
        "102030", "142536", "198400", "696969", "520520", "131313", "101010", "202020", "112358", "314159",
    ]

    /// Throws `weak_pin` (``LatchkeyError/isWeakPIN``) saying what is wrong with `pin`.
    public func check(_ pin: String) throws {
        guard pin.allSatisfy({ $0.isASCII && $0.isNumber }) else { throw Self.weak("The PIN must be digits only") }
        guard pin.count >= minimumLength else { throw Self.weak("The PIN must have at least \(minimumLength) digits") }
        guard pin.count <= maximumLength else { throw Self.weak("The PIN must have at most \(maximumLength) digits") }
        if Self.isTrivial(pin) { throw Self.weak("This PIN is too easy to guess") }
    }

    static func isTrivial(_ pin: String) -> Bool {
        let digits = pin.compactMap { $0.wholeNumberValue }
        let steps = Set(zip(digits, digits.dropFirst()).map { ($1 - $0 + 10) % 10 })
        // One digit repeated (step 0) or a run up or down, wrapping (1 or 9).
        if steps.count == 1, let step = steps.first, [0, 1, 9].contains(step) { return true }
        // A repeated block: 121212, 123123, 112112 …
        for size in 1...max(1, digits.count / 2) where digits.count % size == 0 {
            let block = Array(digits.prefix(size))
            if (0..<(digits.count / size)).allSatisfy({ Array(digits[($0 * size)..<(($0 + 1) * size)]) == block }) { return true }
        }
        // A palindrome of a run (123321) or pairs (112233).
        if digits == digits.reversed(), isTrivial(String(pin.prefix(pin.count / 2))) { return true }
        if digits.count % 2 == 0, stride(from: 0, to: digits.count, by: 2).allSatisfy({ digits[$0] == digits[$0 + 1] }) {
            let halves = stride(from: 0, to: digits.count, by: 2).map { String(digits[$0]) }.joined()
            if halves.count >= 2, isTrivial(halves) { return true }
        }
        return common.contains(pin)
    }

    static func weak(_ message: String) -> LatchkeyError { LatchkeyError(code: .weakPIN, message: message) }
}
