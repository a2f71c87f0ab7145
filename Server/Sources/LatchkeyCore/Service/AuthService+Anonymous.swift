import Foundation
import LatchkeyAPI

extension AuthService {
    /// `POST /signup` with neither an email nor a phone, when anonymous users are on: a user with
    /// no identity and no address (`is_anonymous`), signed in at once (`amr` `anonymous`, `aal1`).
    /// Checked in GoTrue's order: the setting, the client's hourly budget, then whether sign-ups
    /// are allowed at all. Only `data` (the user's metadata) is taken from the request.
    func signUpAnonymously(_ request: SignUpRequest, client: ClientInfo) async throws -> Session {
        guard configuration.anonymousUsers else {
            throw AuthError(.anonymousProviderDisabled, "Anonymous sign-ins are disabled")
        }
        try await limiter.hit([LimitBudget.Limit("ip:anonymous:\(client.ip)", configuration.rateLimits.anonymousPerIP)])
        guard !configuration.disableSignup else { throw AuthError.signupDisabled }
        let data = request.data ?? [:]
        try checkMetadataSize(data)
        let now = time.now()
        var user = UserRecord(
            id: random.uuid(), aud: configuration.jwt.audience, role: "authenticated", email: nil, passwordHash: nil, appMetadata: [:],
            userMetadata: data, createdAt: now, updatedAt: now)
        user.isAnonymous = true
        user.lastSignInAt = now
        let session = newSession(for: user, method: "anonymous", client: client, now: now)
        try await store.createAnonymousUser(
            user, session: session,
            audit: [
                auditEvent(.userSignedUp, user: user, details: ["provider": "anonymous"], client: client),
                loginEvent(user, method: "anonymous", client: client),
            ])
        return try await sessionResponse(
            user: user, session: session, account: AccountRecords(user: user, session: session, identities: [], factors: []))
    }
}

extension AuthService {
    /// Deletes the anonymous users made more than `days` days ago, with everything they own, in
    /// batches (each with its audit events); returns how many went. Users who added an address
    /// since are permanent and stay.
    public func deleteStaleAnonymousUsers(olderThanDays days: Int) async throws -> Int {
        let cutoff = time.now().addingTimeInterval(-Double(days) * 86400)
        var total = 0
        while true {
            let deleted = try await store.deleteAnonymousUsers(createdBefore: cutoff, limit: 500) { id in
                self.auditEvent(.userDeleted, userID: id, name: "anonymous", details: ["reason": "stale anonymous user"])
            }
            total += deleted
            if deleted < 500 { return total }
        }
    }
}
