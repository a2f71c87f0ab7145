import Foundation
import LatchkeyAPI

extension UserRecord {
    /// Refuses what an anonymous user may not do (second factors, as on GoTrue):
    /// `no_authorization`, 403.
    public func refuseIfAnonymous() throws {
        guard isAnonymous else { return }
        var error = AuthError(.noAuthorization, "Anonymous user not allowed to perform these actions")
        error.status = 403
        throw error
    }
}
