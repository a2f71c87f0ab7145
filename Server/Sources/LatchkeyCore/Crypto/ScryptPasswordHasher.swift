import Crypto
import CryptoExtras
import Foundation

/// scrypt password hashing in a PHC string (`$scrypt$ln=17,r=8,p=1$<salt>$<hash>`), with
/// verification of bcrypt hashes imported from GoTrue (`$2a$`, `$2b$`, `$2y$`).
///
/// Work runs on the injected ``WorkPool`` (the server's own thread pool), so a burst of sign-ins
/// queues there instead of blocking event loops, and at most one hash per pool thread is in
/// memory at once (128 MiB each at OWASP's N=2^17, r=8).
public struct ScryptPasswordHasher: PasswordHasher {
    public let logN: Int
    public let r: Int
    public let p: Int
    let pool: any WorkPool
    let bcrypt: (any BcryptVerifier)?

    static let saltBytes = 16
    static let keyBytes = 32

    /// - Parameters:
    ///   - logN: log2 of the cost N; 17 is OWASP's minimum.
    ///   - pool: where hashing runs.
    ///   - bcrypt: checks GoTrue's bcrypt hashes; without it they match nothing.
    public init(logN: Int = 17, r: Int = 8, p: Int = 1, pool: any WorkPool, bcrypt: (any BcryptVerifier)? = nil) {
        self.logN = logN
        self.r = r
        self.p = p
        self.pool = pool
        self.bcrypt = bcrypt
    }

    public func hash(_ password: String) async throws -> String {
        let salt = SecureRandom.bytes(Self.saltBytes)
        let (logN, r, p) = (self.logN, self.r, self.p)
        let key = try await pool.run {
            try Self.derive(Self.normalized(password), salt: salt, logN: logN, r: r, p: p)
        }
        return "$scrypt$ln=\(logN),r=\(r),p=\(p)$\(Self.b64(salt))$\(Self.b64(key))"
    }

    /// A random salt and a random key at the current cost: verifying against it derives a key as
    /// a real hash does, and nothing matches it, but making it derives nothing (no 128 MiB hash
    /// at start-up).
    public func decoyHash() async throws -> String {
        let salt = SecureRandom.bytes(Self.saltBytes)
        let key = SecureRandom.bytes(Self.keyBytes)
        return "$scrypt$ln=\(logN),r=\(r),p=\(p)$\(Self.b64(salt))$\(Self.b64(key))"
    }

    public func verify(_ password: String, against hash: String) async throws -> Bool {
        if hash.hasPrefix("$2a$") || hash.hasPrefix("$2b$") || hash.hasPrefix("$2y$") {
            // GoTrue hashes the password bytes as sent; bcrypt reads at most 72 of them.
            guard let bcrypt else { return false }
            return try await pool.run { bcrypt.verify(password, hash: hash) }
        }
        guard let parsed = ParsedScrypt(hash), parsed.logN <= 22, parsed.r <= 32, parsed.p <= 16 else { return false }
        let candidate = try await pool.run {
            try Self.derive(Self.normalized(password), salt: parsed.salt, logN: parsed.logN, r: parsed.r, p: parsed.p)
        }
        return ConstantTime.equal(candidate, parsed.key)
    }

    public func needsRehash(_ hash: String) -> Bool {
        guard let parsed = ParsedScrypt(hash) else { return true }
        return parsed.logN < logN || parsed.r < r || parsed.p < p
    }

    /// Passwords are compared in Unicode normalisation form C, so "é" typed either way matches.
    static func normalized(_ password: String) -> [UInt8] {
        Array(password.precomposedStringWithCanonicalMapping.utf8)
    }

    static func derive(_ password: [UInt8], salt: [UInt8], logN: Int, r: Int, p: Int) throws -> [UInt8] {
        let key = try KDF.Scrypt.deriveKey(
            from: password, salt: salt, outputByteCount: keyBytes, rounds: 1 << logN, blockSize: r, parallelism: p)
        return key.withUnsafeBytes { Array($0) }
    }

    static func b64(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "=", with: "")
    }
}

/// The parts of a `$scrypt$` PHC string.
struct ParsedScrypt {
    let logN: Int
    let r: Int
    let p: Int
    let salt: [UInt8]
    let key: [UInt8]

    init?(_ phc: String) {
        let parts = phc.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].isEmpty, parts[1] == "scrypt" else { return nil }
        var values: [String: Int] = [:]
        for pair in parts[2].split(separator: ",") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            guard kv.count == 2, let number = Int(kv[1]) else { return nil }
            values[String(kv[0])] = number
        }
        guard let logN = values["ln"], let r = values["r"], let p = values["p"], logN > 0, r > 0, p > 0,
            let salt = Self.unb64(parts[3]), let key = Self.unb64(parts[4]), !key.isEmpty
        else { return nil }
        self.logN = logN
        self.r = r
        self.p = p
        self.salt = salt
        self.key = key
    }

    static func unb64(_ text: Substring) -> [UInt8]? {
        var padded = String(text)
        while padded.count % 4 != 0 { padded += "=" }
        return Data(base64Encoded: padded).map { [UInt8]($0) }
    }
}
