import Crypto
import CryptoExtras
import Foundation

/// scrypt cost parameters, stored with what they protect so they can be raised later.
public struct ScryptParameters: Codable, Sendable, Equatable {
    /// log2 of the CPU/memory cost N.
    public var logN: Int
    /// The block size r.
    public var r: Int
    /// The parallelism p.
    public var p: Int

    /// Creates parameters.
    public init(logN: Int, r: Int = 8, p: Int = 1) {
        self.logN = logN
        self.r = r
        self.p = p
    }

    /// OWASP's minimum for scrypt: N = 2^17, r = 8, p = 1 (128 MiB).
    public static let owasp = ScryptParameters(logN: 17)

    /// Whether the parameters are ones this SDK will run (guards against a tampered blob asking
    /// for gigabytes).
    var isSane: Bool { (10...20).contains(logN) && (1...16).contains(r) && (1...4).contains(p) }
}

/// The keys a PIN or password stretches into. The PIN itself is never stored or sent.
struct VaultSecrets {
    /// Proves the PIN to the server (server-assisted vaults only).
    let verifier: [UInt8]
    /// The PIN's part of the encryption key.
    let wrap: SymmetricKey

    /// Stretches `secret` with scrypt under `salt`.
    init(secret: String, salt: [UInt8], parameters: ScryptParameters) throws {
        guard parameters.isSane else {
            throw LatchkeyError(code: .vaultCorrupted, message: "The vault asks for scrypt parameters this SDK refuses")
        }
        let stretched = try KDF.Scrypt.deriveKey(
            from: Array(secret.precomposedStringWithCanonicalMapping.utf8), salt: salt, outputByteCount: 32,
            rounds: 1 << parameters.logN, blockSize: parameters.r, parallelism: parameters.p)
        verifier = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: stretched, info: Data("latchkey vault verifier v1".utf8), outputByteCount: 32
        ).withUnsafeBytes { Array($0) }
        wrap = HKDF<SHA256>.deriveKey(inputKeyMaterial: stretched, info: Data("latchkey vault wrap v1".utf8), outputByteCount: 32)
    }

    /// The encryption key: the PIN's part alone (local vaults, password backups) or combined with
    /// the server's share (server-assisted vaults), bound to `context`.
    func key(share: [UInt8]?, context: String) -> SymmetricKey {
        let pinPart = wrap.withUnsafeBytes { Array($0) }
        return HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: pinPart + (share ?? [])), salt: Data(context.utf8),
            info: Data((share == nil ? "latchkey local vault key v1" : "latchkey vault key v1").utf8), outputByteCount: 32)
    }

    static func randomSalt() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }
}
