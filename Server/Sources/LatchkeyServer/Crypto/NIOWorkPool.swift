import LatchkeyCore
import NIOPosix

/// The server's ``WorkPool``: a started `NIOThreadPool`, sized by `LATCHKEY_PASSWORD_HASH_CONCURRENCY`.
public struct NIOWorkPool: WorkPool {
    let pool: NIOThreadPool

    public init(_ pool: NIOThreadPool) {
        self.pool = pool
    }

    public func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await pool.runIfActive(work)
    }
}

extension ScryptPasswordHasher {
    /// The server's hasher: scrypt on `pool`, and GoTrue's bcrypt hashes checked with
    /// HummingbirdBcrypt.
    public init(logN: Int = 17, r: Int = 8, p: Int = 1, pool: NIOThreadPool) {
        self.init(logN: logN, r: r, p: p, pool: NIOWorkPool(pool), bcrypt: HummingbirdBcryptVerifier())
    }
}
