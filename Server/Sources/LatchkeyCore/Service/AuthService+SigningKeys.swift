import Foundation
import LatchkeyAPI

extension AuthService {
    /// The longest wait before a rotated or imported key signs: 30 days.
    public static let maximumKeyDelay: TimeInterval = 30 * 86400

    /// A store record for an ES256 private key, its private part sealed with `box`. The key id is
    /// a digest of the PEM, as the data folder's key has always had.
    public static func signingKeyRecord(pem: String, signsFrom: Date, now: Date, box: SecretBox) throws -> SigningKeyRecord {
        let kid = String(OneTimeSecrets.linkHash(pem).prefix(16))
        return SigningKeyRecord(
            kid: kid, sealedPrivateKey: try box.seal(Array(pem.utf8), context: kid),
            publicJWK: try SigningKeyPEM.publicJWK(pem: pem, kid: kid), createdAt: now, signsFrom: signsFrom)
    }

    /// `latchkey keys rotate`: a new key, published now, signing after `delay` seconds (long
    /// enough for clients' cached JWKS to learn it); the current key keeps verifying until the
    /// tokens it signed have expired.
    public func rotateSigningKey(after delay: TimeInterval) async throws -> SigningKeyRecord {
        try await addSigningKey(pem: SigningKeyPEM.generate(), after: delay, action: .keyRotated)
    }

    /// `latchkey keys import`: an operator's own ES256 (P-256) private key in PEM, scheduled like a
    /// rotation.
    public func importSigningKey(pem: String, after delay: TimeInterval) async throws -> SigningKeyRecord {
        guard (try? SigningKeyPEM.publicJWK(pem: pem, kid: "")) != nil else {
            throw AuthError.validation("The file is not an EC P-256 private key in PEM (BEGIN PRIVATE KEY or BEGIN EC PRIVATE KEY)")
        }
        return try await addSigningKey(pem: pem, after: delay, action: .keyImported)
    }

    func addSigningKey(pem: String, after delay: TimeInterval, action: AuditAction) async throws -> SigningKeyRecord {
        try requireStoredKeys()
        guard (0...Self.maximumKeyDelay).contains(delay) else {
            throw AuthError.validation("The delay must be from 0 seconds to 30 days")
        }
        let now = time.now()
        let key = try Self.signingKeyRecord(pem: pem, signsFrom: now.addingTimeInterval(delay), now: now, box: keyBox)
        let event = auditEvent(
            action, userID: nil, name: nil,
            details: ["kid": .string(key.kid), "signs_from": .string(WireJSON.formatDate(key.signsFrom))])
        guard try await store.addSigningKey(key, audit: [event]) else { throw AuthError.validation("This key is stored already") }
        try await reloadSigningKeys()
        return key
    }

    /// `latchkey keys retire`: deletes a stored key that does not sign now, at once. Every token
    /// it signed stops verifying (on other instances within their reload interval): after a key
    /// leak, rotate with no delay, then retire the leaked key. Users keep their sessions, since
    /// refresh tokens are not signed by it.
    public func retireSigningKey(kid: String) async throws {
        try requireStoredKeys()
        try await reloadSigningKeys()
        guard try await store.signingKeys().contains(where: { $0.kid == kid }) else {
            throw AuthError(.notFound, "No stored signing key has the id \(kid)")
        }
        guard issuer.signingKeyID != kid else {
            throw AuthError.validation("Key \(kid) signs now: rotate first (latchkey keys rotate --delay 0s), then retire it")
        }
        let event = auditEvent(.keyRetired, userID: nil, name: nil, details: ["kid": .string(kid)])
        guard try await store.deleteSigningKeys(kids: [kid], audit: [event]) == 1 else {
            throw AuthError(.notFound, "No stored signing key has the id \(kid)")
        }
        try await reloadSigningKeys()
    }

    /// `latchkey keys service-token`: a token for the admin API, as Supabase's `service_role`
    /// key: an admin `role`, no `sub`, `exp` after `lifetime` seconds (none when `nil`), signed
    /// by the key that signs now. It verifies for as long as that key does: until it is retired,
    /// or a token lifetime after the next rotation takes over. Recorded in the audit log (never
    /// the token).
    public func issueServiceToken(role: String, lifetime: TimeInterval?) async throws -> (token: String, expiresAt: Date?) {
        guard configuration.jwt.adminRoles.contains(role) else {
            throw AuthError.validation("role must be one of the admin roles: \(configuration.jwt.adminRoles.joined(separator: ", "))")
        }
        if let lifetime, !(60...Self.longestGoDuration).contains(lifetime) {
            throw AuthError.validation("The lifetime must be at least a minute (or none)")
        }
        let now = time.now()
        let expiresAt = lifetime.map { now.addingTimeInterval($0) }
        let claims = AccessTokenClaims(
            iss: issuerClaim, exp: expiresAt.map { Int($0.timeIntervalSince1970) }, iat: Int(now.timeIntervalSince1970), role: role)
        let token = try await issuer.sign(claims)
        var details: [String: JSONValue] = ["role": .string(role)]
        details["expires_at"] = expiresAt.map { .string(WireJSON.formatDate($0)) } ?? .null
        details["kid"] = issuer.signingKeyID.map(JSONValue.string) ?? .null
        try await store.appendAudit([auditEvent(.serviceTokenIssued, userID: nil, name: nil, details: details)])
        return (token, expiresAt)
    }

    /// Refuses to change keys that come from `GOTRUE_JWT_KEYS` or `GOTRUE_JWT_SECRET`.
    func requireStoredKeys() throws {
        guard issuer.usesStoredKeys else {
            throw AuthError.validation("Tokens are signed with keys from GOTRUE_JWT_KEYS or GOTRUE_JWT_SECRET: change them there")
        }
    }

    /// Re-reads the stored keys into the issuer (a rotation by another process, a key whose time
    /// to sign came) and deletes those no valid token can carry any more.
    public func reloadSigningKeys() async throws {
        guard issuer.usesStoredKeys else { return }
        let keys = try await store.signingKeys()
        try await store.deleteSigningKeys(kids: SigningKeyRecord.obsolete(keys, at: time.now(), retention: issuer.retention))
        try await issuer.install(keys, privatePEM: openSigningKey)
    }

    /// A stored key's private PEM.
    public func openSigningKey(_ key: SigningKeyRecord) throws -> String {
        try Self.openSigningKey(key, box: keyBox)
    }

    /// A stored key's private PEM, opened with `box` (the server secret's key box). Fails when the
    /// key was sealed under another server secret.
    public static func openSigningKey(_ key: SigningKeyRecord, box: SecretBox) throws -> String {
        String(decoding: try box.open(key.sealedPrivateKey, context: key.kid), as: UTF8.self)
    }

    /// The stored signing keys with their private PEMs, before a service exists (at start). On
    /// the first start against an empty store, `firstPEM` (an older data folder's key, else a new
    /// one) becomes the first key, valid from the epoch so that tokens it signed stay valid;
    /// instances racing here agree on the first one stored. `mismatch` is thrown for a key that
    /// the server secret cannot open.
    public static func storedSigningKeys(
        store: any AuthStore, serverSecret: [UInt8], now: Date, firstPEM: () -> String, mismatch: (String) -> any Error
    ) async throws -> [(SigningKeyRecord, String)] {
        let box = signingKeyBox(serverSecret: serverSecret)
        var keys = try await store.signingKeys()
        if keys.isEmpty {
            let first = try signingKeyRecord(pem: firstPEM(), signsFrom: Date(timeIntervalSince1970: 0), now: now, box: box)
            _ = try await store.addSigningKey(first, audit: [])
            keys = try await store.signingKeys()
        }
        return try keys.map { key in
            guard let pem = try? openSigningKey(key, box: box) else { throw mismatch(key.kid) }
            return (key, pem)
        }
    }
}
