import Foundation
import LatchkeyCore
import Logging
import ServiceLifecycle

/// Runs ``OutboxDelivery``: at once when a request queued mail (``OutboxSignal``), when the
/// next retry is due, and every few seconds for mail other instances queued.
struct OutboxDeliveryService: Service {
    let delivery: OutboxDelivery
    let signal: OutboxSignal
    /// The longest sleep between rounds.
    let idle: Duration
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                var wait = idle
                do {
                    try await delivery.deliverDue()
                    if let next = try await delivery.nextDue() {
                        let seconds = next.timeIntervalSince(delivery.time.now())
                        wait = min(idle, .milliseconds(max(10, Int(seconds * 1000))))
                    }
                } catch is CancellationError {
                    return  // shutting down; what was claimed is retried after its lease
                } catch {
                    logger.error("outbox delivery round failed", metadata: ["error": "\(error)"])
                }
                await signal.wait(timeout: wait)
            }
        }
    }
}
