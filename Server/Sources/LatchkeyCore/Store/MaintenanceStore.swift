import Foundation

/// What the periodic clean-up (`CleanupService`) deletes besides old audit events.
public protocol MaintenanceStore: Sendable {
    /// Deletes expired tokens, rate-limit windows, outbox rows finished over a week ago, and the
    /// OAuth server's requests a day past their end; returns how many rows went.
    func deleteExpired(now: Date) async throws -> Int
}
