import Foundation

/// What the periodic clean-up (`CleanupService`) deletes besides old audit events.
public protocol MaintenanceStore: Sendable {
    /// Deletes expired tokens, rate-limit windows, and outbox rows finished over a week ago;
    /// returns how many rows went.
    func deleteExpired(now: Date) async throws -> Int
}
