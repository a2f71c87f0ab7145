import Foundation
import LatchkeyAPI

extension UserRecord {
    /// The user after a sign-in by an emailed code or link at `now`: the address confirmed (and
    /// `email_verified` in its metadata) if it was not, the last sign-in moved on.
    func signedInByEmail(at now: Date) -> UserRecord {
        var updated = self
        if updated.emailConfirmedAt == nil {
            updated.emailConfirmedAt = now
            updated.userMetadata["email_verified"] = true
        }
        updated.lastSignInAt = now
        updated.updatedAt = now
        return updated
    }
}
