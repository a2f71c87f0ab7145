import Foundation
import LatchkeyAPI
import LatchkeyCore
import Logging
import ServiceLifecycle

/// Deletes expired codes and rate-limit windows every few minutes, audit events older than the
/// retention when one is set, and stale anonymous users when their retention is set.
struct CleanupService: Service {
    let store: any MaintenanceStore & AuditLogStore
    let time: any TimeSource
    let interval: Duration
    /// Days the audit log keeps events; 0 keeps them for ever.
    var auditRetentionDays = 0
    /// Deletes stale anonymous users (`anonymous-users-retention-days`); `nil` keeps them.
    var anonymousCleanup: (@Sendable () async throws -> Int)?
    let logger: Logger

    func run() async throws {
        await repeatUntilShutdown(every: interval) {
            do {
                var removed = try await store.deleteExpired(now: time.now())
                if auditRetentionDays > 0 {
                    removed += try await store.deleteAuditEvents(
                        before: time.now().addingTimeInterval(-Double(auditRetentionDays) * 86400))
                }
                if let anonymousCleanup { removed += try await anonymousCleanup() }
                if removed > 0 { logger.debug("cleanup removed expired rows", metadata: ["rows": "\(removed)"]) }
            } catch {
                logger.error("cleanup failed", metadata: ["error": "\(error)"])
            }
        }
    }
}
