import Foundation
import LatchkeyAPI

extension AdminUsers {
    /// A user's sessions, newest first (the console's view; GoTrue's admin API has none).
    public func sessions(ofUser raw: String) async throws -> [SessionRecord] {
        let user = try await existingUser(raw)
        return try await store.sessions(userID: user.id).sorted { $0.createdAt > $1.createdAt }
    }

    /// Signs a user out everywhere: every session and device key ends, so refresh tokens stop
    /// working at once (access tokens run out within their lifetime). Recorded as `logout` with
    /// the operator as actor. Written on the copy of the user it lands on, like every operator
    /// change, so a sign-in racing it either ends with it or starts after it.
    public func signOut(id raw: String) async throws {
        let found = try await existingUser(raw)
        try await store.onFreshCopies(of: found) { current in
            var user = current
            user.updatedAt = records.time.now()
            try await store.adminUpdateUser(
                user, endSessions: true, audit: [records.events.event(.logout, user: user, details: ["scope": "global"])])
        }
    }
}
