import Foundation

extension UserReading {
    /// How many copies ``onFreshCopies(of:_:)`` decides on before it gives up.
    static var freshCopyTries: Int { 8 }

    /// Runs a decision about `user` and its write until the write lands on the copy it was
    /// decided from.
    ///
    /// The store writes a user only while the row is still at the version the copy was read at
    /// (``StoreError/conflict(_:)`` otherwise). When another request wrote in between, `attempt`
    /// runs again on a fresh copy and decides anew, so a ban, a new password or a new address
    /// that landed meanwhile is seen (and wins) instead of being overwritten; a benign change (the
    /// other request's `last_sign_in_at`) is kept. Gives up with 409 `conflict` after eight tries:
    /// each lost try means another write to the user landed meanwhile, so eight outlast the
    /// sign-ins one user has in flight at once (six racing sign-ins took five under the whole
    /// PostgreSQL suite's load, `WriteRaceTests`).
    func onFreshCopies<T>(of user: UserRecord, _ attempt: (UserRecord) async throws -> T) async throws -> T {
        var copy = user
        var tries = 0
        while true {
            do {
                return try await attempt(copy)
            } catch let error as StoreError where error.isConflict && tries < Self.freshCopyTries - 1 {
                tries += 1
                guard let fresh = try await self.user(id: user.id) else { throw AuthError.userNotFound }
                copy = fresh
            }
        }
    }
}
