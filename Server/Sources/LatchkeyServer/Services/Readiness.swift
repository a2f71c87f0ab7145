import ServiceLifecycle
import Synchronization

/// Whether this instance takes new work: `false` from the moment graceful shutdown begins
/// (SIGTERM), so `/health` tells the load balancer before the listener closes.
public final class Readiness: Sendable {
    private let draining = Mutex(false)

    public init() {}

    /// Whether the instance is shutting down.
    public var isDraining: Bool { draining.withLock { $0 } }

    func drain() { draining.withLock { $0 = true } }
}

/// Flips ``Readiness`` when the service group starts shutting down gracefully.
struct ReadinessService: Service {
    let readiness: Readiness

    func run() async throws {
        try? await gracefulShutdown()
        readiness.drain()
    }
}
