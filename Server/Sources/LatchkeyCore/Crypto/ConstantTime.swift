/// Comparison of secrets in time that depends only on their lengths, never on where they differ:
/// the one place every code, verifier, MAC and key check compares bytes.
public enum ConstantTime {
    /// Whether `a` and `b` hold the same bytes.
    public static func equal(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (left, right) in zip(a, b) { difference |= left ^ right }
        return difference == 0
    }

    /// Whether `a` and `b` have the same UTF-8 bytes.
    public static func equal(_ a: String, _ b: String) -> Bool {
        equal(a.utf8, b.utf8)
    }
}
