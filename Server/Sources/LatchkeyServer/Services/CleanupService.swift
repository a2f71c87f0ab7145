import Foundation
import LatchkeyAPI
import LatchkeyCore
import Logging
import ServiceLifecycle

/// Deletes expired codes and rate-limit windows every few minutes.
struct CleanupService: Service {
    let store: any AuthStore
    let time: any TimeSource
    let interval: Duration
    let logger: Logger

    func run() async throws {
        while !Task.isShuttingDownGracefully {
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            } catch {
                return
            }
            do {
                let removed = try await store.deleteExpired(now: time.now())
                if removed > 0 { logger.debug("cleanup removed expired rows", metadata: ["rows": "\(removed)"]) }
            } catch {
                logger.error("cleanup failed", metadata: ["error": "\(error)"])
            }
        }
    }
}
