import LatchkeyCore
import NIOPosix

/// The server's ``WorkPool``: a started `NIOThreadPool`, sized by `LATCHKEY_PASSWORD_HASH_CONCURRENCY`.
/// With metrics on, it records how long each piece of work waited for a thread.
public struct NIOWorkPool: WorkPool {
    let pool: NIOThreadPool
    let metrics: AuthMetrics

    public init(_ pool: NIOThreadPool, metrics: AuthMetrics = .disabled) {
        self.pool = pool
        self.metrics = metrics
    }

    public func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        guard metrics.isEnabled else { return try await pool.runIfActive(work) }
        let queued = ContinuousClock.now
        let metrics = self.metrics
        return try await pool.runIfActive {
            metrics.hashQueueWait(ContinuousClock.now - queued)
            return try work()
        }
    }
}

extension ScryptPasswordHasher {
    /// The server's hasher: scrypt on `pool`, and GoTrue's bcrypt hashes checked with
    /// HummingbirdBcrypt.
    public init(logN: Int = 17, r: Int = 8, p: Int = 1, pool: NIOThreadPool, metrics: AuthMetrics = .disabled) {
        self.init(logN: logN, r: r, p: p, pool: NIOWorkPool(pool, metrics: metrics), bcrypt: HummingbirdBcryptVerifier())
    }
}
