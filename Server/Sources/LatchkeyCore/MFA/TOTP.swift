import Crypto
import Foundation

/// Time-based one-time passwords (RFC 6238) as authenticator apps make them: HMAC-SHA1,
/// 6 digits, 30-second steps.
public struct TOTP: Sendable {
    public let secret: [UInt8]
    public let digits: Int
    public let period: Int

    public init(secret: [UInt8], digits: Int = 6, period: Int = 30) {
        self.secret = secret
        self.digits = digits
        self.period = period
    }

    /// The time step `date` falls in.
    public func step(at date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 / Double(period)).rounded(.down))
    }

    /// The code for time step `step` (RFC 4226's HOTP with the step as counter).
    public func code(step: Int64) -> String {
        var counter = UInt64(bitPattern: step).bigEndian
        let message = withUnsafeBytes(of: &counter) { Array($0) }
        let mac = Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: SymmetricKey(data: secret)))
        let offset = Int(mac[mac.count - 1] & 0x0F)
        let truncated =
            (UInt32(mac[offset] & 0x7F) << 24) | (UInt32(mac[offset + 1]) << 16) | (UInt32(mac[offset + 2]) << 8)
            | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let value = String(truncated % modulus)
        return String(repeating: "0", count: digits - value.count) + value
    }

    /// The step whose code `code` is, looking `window` steps either side of `date`'s, or `nil`.
    /// Every candidate is compared in constant time.
    public func matchingStep(_ code: String, at date: Date, window: Int = 1) -> Int64? {
        guard code.utf8.count == digits else { return nil }
        let current = step(at: date)
        var found: Int64?
        for candidate in (current - Int64(window))...(current + Int64(window)) {
            let expected = self.code(step: candidate)
            let same = zip(expected.utf8, code.utf8).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
            if same, found == nil { found = candidate }
        }
        return found
    }

    /// The `otpauth://` URI authenticator apps read from a QR code.
    public func uri(issuer: String, account: String) -> String {
        var allowed = CharacterSet.alphanumerics
        // `+` is encoded: query-string parsers read a bare one as a space (a `+` address or a phone).
        allowed.insert(charactersIn: "-._~@")
        let label = [issuer, account].map { $0.addingPercentEncoding(withAllowedCharacters: allowed) ?? "" }.joined(separator: ":")
        let encodedIssuer = issuer.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
        return
            "otpauth://totp/\(label)?secret=\(Base32.encode(secret))&issuer=\(encodedIssuer)&algorithm=SHA1&digits=\(digits)&period=\(period)"
    }
}
