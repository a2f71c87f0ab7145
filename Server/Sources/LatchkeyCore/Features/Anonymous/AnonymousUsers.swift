import Foundation
import LatchkeyAPI

/// Anonymous users: `POST /signup` with neither an email nor a phone signs in a user with no
/// identity and no address (`is_anonymous`, `amr` `anonymous`, `aal1`), and users left anonymous
/// past the retention are deleted in the background. A user who adds an address or a number
/// becomes permanent (issue #11) and is never deleted as stale.
public struct AnonymousUsers: Sendable {
    /// What anonymous sign-ups are configured with.
    public struct Settings: Sendable {
        /// Whether anonymous sign-ins are on (`GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED`).
        public var enabled: Bool
        /// Whether sign-ups are off altogether (`GOTRUE_DISABLE_SIGNUP`).
        public var disableSignup: Bool
        /// Anonymous sign-ups per client IP.
        public var perIP: RateLimit
        /// The largest `data` accepted, in bytes of JSON.
        public var metadataMaxBytes: Int
        /// The `aud` of the users made.
        public var audience: String

        public init(enabled: Bool, disableSignup: Bool, perIP: RateLimit, metadataMaxBytes: Int, audience: String) {
            self.enabled = enabled
            self.disableSignup = disableSignup
            self.perIP = perIP
            self.metadataMaxBytes = metadataMaxBytes
            self.audience = audience
        }

        /// The settings of `configuration`.
        public init(_ configuration: AuthConfiguration) {
            self.init(
                enabled: configuration.anonymousUsers, disableSignup: configuration.disableSignup,
                perIP: configuration.rateLimits.anonymousPerIP, metadataMaxBytes: configuration.userMetadataMaxBytes,
                audience: configuration.jwt.audience)
        }
    }

    /// How many stale users one transaction deletes.
    static let batch = 500

    let store: any AnonymousUserStore
    let limiter: RateLimiter
    let settings: Settings
    let records: Records

    public init(store: any AnonymousUserStore, limiter: RateLimiter, settings: Settings, records: Records) {
        self.store = store
        self.limiter = limiter
        self.settings = settings
        self.records = records
    }

    /// Whether `POST /signup` asks for an anonymous user: neither an email nor a phone (an empty
    /// string counts as none, as on GoTrue).
    public static func isAnonymous(_ request: SignUpRequest) -> Bool {
        (request.email?.isEmpty ?? true) && (request.phone?.isEmpty ?? true)
    }

    /// Signs up and in an anonymous user. Checked in GoTrue's order: the setting, the client's
    /// hourly budget, then whether sign-ups are allowed at all. Only `data` (the user's metadata)
    /// is taken from the request.
    public func signUp(_ request: SignUpRequest, client: ClientInfo) async throws -> Session {
        guard settings.enabled else { throw AuthError(.anonymousProviderDisabled, "Anonymous sign-ins are disabled") }
        try await limiter.hit([RateLimiter.Limit("ip:anonymous:\(client.limitKey)", settings.perIP)])
        guard !settings.disableSignup else { throw AuthError.signupDisabled }
        let data = request.data ?? [:]
        try UserMetadata.check(data, maxBytes: settings.metadataMaxBytes)
        let now = records.time.now()
        var user = UserRecord(
            id: records.random.uuid(), aud: settings.audience, role: "authenticated", email: nil, passwordHash: nil, appMetadata: [:],
            userMetadata: data, createdAt: now, updatedAt: now)
        user.isAnonymous = true
        user.lastSignInAt = now
        try await records.hooks.beforeUserCreated(user)
        let session = records.answers.newSession(for: user, method: "anonymous", client: client, now: now)
        try await store.createAnonymousUser(
            user, session: session,
            audit: [
                records.events.event(.userSignedUp, user: user, details: ["provider": "anonymous"], client: client),
                records.events.event(.login, user: user, details: ["method": "anonymous"], client: client),
            ])
        return try await records.answers.answer(
            user: user, session: session, account: AccountRecords(user: user, session: session, identities: [], factors: []))
    }

    /// Deletes the anonymous users made more than `days` days ago, with everything they own, in
    /// batches (each with its audit events); returns how many went. Users who added an address
    /// since are permanent and stay.
    public func deleteStale(olderThanDays days: Int) async throws -> Int {
        let cutoff = records.time.now().addingTimeInterval(-Double(days) * 86400)
        var total = 0
        while true {
            let ids = try await store.anonymousUsers(createdBefore: cutoff, limit: Self.batch)
            let events = Dictionary(
                uniqueKeysWithValues: ids.map { id in
                    (id, records.events.event(.userDeleted, userID: id, name: "anonymous", details: ["reason": "stale anonymous user"]))
                })
            total += try await store.deleteAnonymousUsers(ids, createdBefore: cutoff, audit: events).count
            if ids.count < Self.batch { return total }
        }
    }
}
