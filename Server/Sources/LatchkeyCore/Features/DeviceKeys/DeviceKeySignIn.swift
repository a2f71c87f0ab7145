import Crypto
import Foundation
import LatchkeyAPI

/// `POST /token?grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer`: a session for an ES256
/// assertion a registered device key signed. A replayed, expired, wrongly addressed,
/// unknown-key or revoked-key assertion is `invalid_grant`; one assertion sent twice at once
/// yields one session.
public struct DeviceKeySignIn: Sendable {
    /// What the grant is configured with.
    public struct Settings: Sendable {
        /// The `aud` an assertion must carry: this server's token endpoint.
        public var tokenEndpoint: String
        /// `/token` requests per client IP.
        public var tokenPerIP: RateLimit

        public init(tokenEndpoint: String, tokenPerIP: RateLimit) {
            self.tokenEndpoint = tokenEndpoint
            self.tokenPerIP = tokenPerIP
        }

        /// The settings of `configuration`: the token endpoint under its external URL.
        public init(_ configuration: AuthConfiguration) {
            let base = configuration.externalURL.hasSuffix("/") ? String(configuration.externalURL.dropLast()) : configuration.externalURL
            self.init(tokenEndpoint: base + "/token", tokenPerIP: configuration.rateLimits.tokenPerIP)
        }
    }

    /// The longest an assertion may live, and the leeway allowed for the device's clock.
    static let lifetime: TimeInterval = 300
    static let leeway: TimeInterval = 30

    let store: any DeviceKeySignInStore
    let assertions: any DeviceKeyAssertionReader
    let limiter: RateLimiter
    let settings: Settings
    let answers: SessionAnswers
    let time: any TimeSource

    public init(
        store: any DeviceKeySignInStore, assertions: any DeviceKeyAssertionReader, limiter: RateLimiter, settings: Settings,
        answers: SessionAnswers, time: any TimeSource
    ) {
        self.store = store
        self.assertions = assertions
        self.limiter = limiter
        self.settings = settings
        self.answers = answers
        self.time = time
    }

    var events: AuditEvents { AuditEvents(time: time, random: answers.random) }

    /// Signs in with the request's assertion. A refused assertion is recorded as a failed
    /// sign-in: of the key's user when the key exists (an unverified `sub` names nobody), under
    /// the key id the assertion gave.
    public func signIn(_ request: JWTBearerGrantRequest, client: ClientInfo) async throws -> Session {
        try await limiter.hit([.tokenRequests(from: client, settings.tokenPerIP)])
        guard let assertion = request.assertion, !assertion.isEmpty else { throw AuthError.oauthInvalidRequest("assertion required") }
        var attempt = Attempt()
        do {
            return try await session(assertion: assertion, client: client, attempt: &attempt)
        } catch let error as AuthError where error.oauthError == "invalid_grant" {
            let details: [String: JSONValue] = [
                "method": "device_key", "reason": .string(error.code.rawValue), "detail": .string(String(error.message.prefix(200))),
            ]
            try await store.appendAudit([
                events.event(
                    .loginFailed, user: attempt.user, orID: nil, name: attempt.keyID.map { "device_key:\($0)" }, details: details,
                    client: client)
            ])
            throw error
        }
    }

    /// Who a sign-in was for, as far as it got: for the audit log.
    struct Attempt {
        var keyID: String?
        var user: UserRecord?
    }

    /// The checks and the redemption of ``signIn(_:client:)``; `attempt` learns the key id and,
    /// once the key is found, its user.
    func session(assertion: String, client: ClientInfo, attempt: inout Attempt) async throws -> Session {
        guard assertion.utf8.count <= 8192 else { throw Self.invalidGrant("assertion is too large") }
        guard let unverified = await assertions.unverifiedClaims(assertion), let keyID = UUID(text: unverified.iss) else {
            throw Self.invalidGrant("the assertion is not a JWT naming a device key as its iss")
        }
        attempt.keyID = keyID.lowercasedString
        guard let key = try await store.deviceKey(id: keyID) else { throw Self.keyNotFound }
        attempt.user = try await store.user(id: key.userID)
        guard let claims = await assertions.verifiedClaims(assertion, key: try Self.publicKey(key.publicKey)) else {
            throw Self.invalidGrant("the assertion's signature does not verify")
        }
        let now = time.now()
        try Self.check(claims, key: key, audience: settings.tokenEndpoint, now: now)
        guard let user = attempt.user else { throw Self.invalidGrant("user not allowed") }
        return try await store.onFreshCopies(of: user) { user in
            guard !user.isBanned(at: now) else { throw Self.invalidGrant("user not allowed") }
            var signedIn = user
            signedIn.lastSignInAt = now
            signedIn.updatedAt = now
            let session = answers.newSession(for: signedIn, method: "device_key", client: client, now: now)
            let login = events.event(.login, user: signedIn, details: ["method": "device_key"], client: client)
            switch try await store.redeemAssertion(
                keyID: key.id, jti: claims.jti, expiresAt: claims.exp, session: session, user: signedIn, audit: [login])
            {
            case .redeemed: break
            case .replayed: throw Self.invalidGrant("the assertion was already used")
            case .keyGone: throw Self.keyNotFound
            }
            return try await answers.answer(user: signedIn, session: session)
        }
    }

    /// The rules a verified assertion's claims must meet at `now`: for the key's user, addressed
    /// to `audience`, unexpired and at most five minutes ahead, issued in the last five minutes,
    /// with a `jti`.
    static func check(_ claims: DeviceKeyAssertion, key: DeviceKeyRecord, audience: String, now: Date) throws {
        guard claims.sub.lowercased() == key.userID.lowercasedString else { throw invalidGrant("sub is not the key's user") }
        guard claims.aud.contains(audience) else {
            throw invalidGrant("aud must be \(audience), not \(claims.aud)")
        }
        guard claims.exp > now else { throw invalidGrant("the assertion has expired") }
        guard claims.exp <= now.addingTimeInterval(lifetime + leeway) else { throw invalidGrant("exp is more than 5 minutes ahead") }
        if let issued = claims.iat {
            guard issued <= now.addingTimeInterval(leeway), issued >= now.addingTimeInterval(-(lifetime + leeway)) else {
                throw invalidGrant("iat is not within the last 5 minutes")
            }
        }
        guard !claims.jti.isEmpty, claims.jti.utf8.count <= 255 else { throw invalidGrant("jti required") }
    }

    /// The key is not registered (any more): the device must enrol again.
    static let keyNotFound = AuthError(
        .deviceKeyNotFound, "The device key is not registered: it was revoked, or the password changed", oauthError: "invalid_grant")

    static func invalidGrant(_ description: String) -> AuthError {
        AuthError(.invalidCredentials, description, oauthError: "invalid_grant")
    }

    /// The verifying key of a stored device key (checked on the curve when it was registered).
    static func publicKey(_ jwk: [String: JSONValue]) throws -> P256.Signing.PublicKey {
        guard let key = P256.Signing.PublicKey(jwkCoordinates: jwk) else { throw keyNotFound }
        return key
    }
}
