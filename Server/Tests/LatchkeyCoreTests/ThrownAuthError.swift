import Foundation

@testable import LatchkeyCore

/// The `AuthError` `work` throws; `nil` when it throws none (or another error).
func thrownAuthError(_ work: () async throws -> some Any) async -> AuthError? {
    do {
        _ = try await work()
        return nil
    } catch {
        return error as? AuthError
    }
}
