import Crypto
import Foundation
import JWTKit
import LatchkeyAPI

extension AuthService {
    /// `POST /token?grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer`: a session for an
    /// ES256 assertion a registered device key signed. A replayed, expired, wrongly addressed,
    /// unknown-key or revoked-key assertion is `invalid_grant`; one assertion sent twice at once
    /// yields one session.
    public func signInWithDeviceKey(_ request: JWTBearerGrantRequest, client: ClientInfo) async throws -> Session {
        try await limiter.hit([tokenLimit(client)])
        guard let assertion = request.assertion, !assertion.isEmpty else { throw AuthError.oauthInvalidRequest("assertion required") }
        var attempt = DeviceKeyAttempt()
        do {
            return try await deviceKeySession(assertion: assertion, client: client, attempt: &attempt)
        } catch let error as AuthError where error.oauthError == "invalid_grant" {
            // A refused assertion is a failed sign-in: of the key's user when the key exists (an
            // unverified `sub` names nobody), under the key id the assertion gave.
            let details: [String: JSONValue] = [
                "method": "device_key", "reason": .string(error.code.rawValue), "detail": .string(String(error.message.prefix(200))),
            ]
            let event =
                if let user = attempt.user { auditEvent(.loginFailed, user: user, details: details, client: client) } else {
                    auditEvent(.loginFailed, userID: nil, name: attempt.keyID.map { "device_key:\($0)" }, details: details, client: client)
                }
            try await store.appendAudit([event])
            throw error
        }
    }

    /// Who a device-key sign-in was for, as far as it got: for the audit log.
    struct DeviceKeyAttempt {
        var keyID: String?
        var user: UserRecord?
    }

    /// The checks and the redemption of ``signInWithDeviceKey(_:client:)``; `attempt` learns the
    /// key id and, once the key is found, its user.
    func deviceKeySession(assertion: String, client: ClientInfo, attempt: inout DeviceKeyAttempt) async throws -> Session {
        guard assertion.utf8.count <= 8192 else { throw Self.invalidGrant("assertion is too large") }
        let parser = JWTKeyCollection()
        guard let unverified = try? await parser.unverified(assertion, as: DeviceKeyAssertion.self),
            let keyID = UUID(uuidString: unverified.iss.value)
        else { throw Self.invalidGrant("the assertion is not a JWT naming a device key as its iss") }
        attempt.keyID = keyID.uuidString.lowercased()
        guard let key = try await store.deviceKey(id: keyID) else { throw Self.deviceKeyNotFound }
        attempt.user = try await store.user(id: key.userID)
        let keys = await JWTKeyCollection().add(ecdsa: try Self.assertionKey(key.publicKey))
        guard let claims = try? await keys.verify(assertion, as: DeviceKeyAssertion.self) else {
            throw Self.invalidGrant("the assertion's signature does not verify")
        }
        let now = time.now()
        guard claims.sub.value.lowercased() == key.userID.uuidString.lowercased() else {
            throw Self.invalidGrant("sub is not the key's user")
        }
        guard claims.aud.value.contains(tokenEndpoint) else {
            throw Self.invalidGrant("aud must be \(tokenEndpoint), not \(claims.aud.value)")
        }
        guard claims.exp.value > now else { throw Self.invalidGrant("the assertion has expired") }
        guard claims.exp.value <= now.addingTimeInterval(300 + 30) else { throw Self.invalidGrant("exp is more than 5 minutes ahead") }
        if let issued = claims.iat?.value {
            guard issued <= now.addingTimeInterval(30), issued >= now.addingTimeInterval(-330) else {
                throw Self.invalidGrant("iat is not within the last 5 minutes")
            }
        }
        guard !claims.jti.value.isEmpty, claims.jti.value.utf8.count <= 255 else { throw Self.invalidGrant("jti required") }
        guard let user = attempt.user else { throw Self.invalidGrant("user not allowed") }
        return try await onFreshCopies(of: user) { user in
            guard !user.isBanned(at: now) else { throw Self.invalidGrant("user not allowed") }
            var signedIn = user
            signedIn.lastSignInAt = now
            signedIn.updatedAt = now
            let session = newSession(for: signedIn, method: "device_key", client: client, now: now)
            switch try await store.redeemAssertion(
                keyID: key.id, jti: claims.jti.value, expiresAt: claims.exp.value, session: session, user: signedIn,
                audit: [loginEvent(signedIn, method: "device_key", client: client)])
            {
            case .redeemed: break
            case .replayed: throw Self.invalidGrant("the assertion was already used")
            case .keyGone: throw Self.deviceKeyNotFound
            }
            return try await sessionResponse(user: signedIn, session: session)
        }
    }

    /// The `aud` an assertion must carry: this server's token endpoint.
    public var tokenEndpoint: String {
        (configuration.externalURL.hasSuffix("/") ? String(configuration.externalURL.dropLast()) : configuration.externalURL) + "/token"
    }

    /// The key is not registered (any more): the device must enrol again.
    static let deviceKeyNotFound = AuthError(
        .deviceKeyNotFound, "The device key is not registered: it was revoked, or the password changed", oauthError: "invalid_grant")

    static func invalidGrant(_ description: String) -> AuthError {
        AuthError(.invalidCredentials, description, oauthError: "invalid_grant")
    }

    /// The verifying key of a stored device key (checked on the curve when it was registered).
    static func assertionKey(_ jwk: [String: JSONValue]) throws -> ES256PublicKey {
        guard case .string(let x)? = jwk["x"], case .string(let y)? = jwk["y"],
            let key = try? ES256PublicKey(parameters: (x: x, y: y))
        else { throw deviceKeyNotFound }
        return key
    }
}
