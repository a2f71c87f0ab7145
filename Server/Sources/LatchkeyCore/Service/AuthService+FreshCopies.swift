import Foundation

extension AuthService {
    /// ``UserReading/onFreshCopies(of:_:)`` on the service's store.
    func onFreshCopies<T>(of user: UserRecord, _ attempt: (UserRecord) async throws -> T) async throws -> T {
        try await store.onFreshCopies(of: user, attempt)
    }
}
