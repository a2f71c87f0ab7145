import Foundation
import LatchkeyAPI

/// The token signing keys an operator manages (`latchkey keys`): rotate, import, retire, mint a
/// service-role token, and the reload that puts stored keys into the issuer. Keys configured by
/// `GOTRUE_JWT_KEYS` or `GOTRUE_JWT_SECRET` are not stored and cannot be changed here.
public struct SigningKeys: Sendable {
    /// What the use case is configured with.
    public struct Settings: Sendable {
        /// The roles a service token may carry (`GOTRUE_JWT_ADMIN_ROLES`).
        public var adminRoles: [String]
        /// The `iss` of every token this server signs.
        public var issuerClaim: String

        public init(adminRoles: [String], issuerClaim: String) {
            self.adminRoles = adminRoles
            self.issuerClaim = issuerClaim
        }

        /// The settings of `configuration`.
        public init(_ configuration: AuthConfiguration) {
            self.init(
                adminRoles: configuration.jwt.adminRoles, issuerClaim: configuration.jwt.issuerClaim(externalURL: configuration.externalURL)
            )
        }
    }

    /// The longest wait before a rotated or imported key signs: 30 days.
    public static let maximumKeyDelay: TimeInterval = 30 * 86400

    let store: any SigningKeyStore
    /// Signs with the key whose time came, and verifies with every stored key.
    public let issuer: any TokenIssuing
    /// Seals and opens the stored keys' private parts.
    let box: SecretBox
    let settings: Settings
    let time: any TimeSource
    /// The ids of the audit events key changes record.
    let random: any RandomSource

    public init(
        store: any SigningKeyStore, issuer: any TokenIssuing, serverSecret: [UInt8], settings: Settings, time: any TimeSource,
        random: any RandomSource
    ) {
        self.store = store
        self.issuer = issuer
        self.box = Self.box(serverSecret: serverSecret)
        self.settings = settings
        self.time = time
        self.random = random
    }

    var events: AuditEvents { AuditEvents(time: time, random: random) }

    /// `latchkey keys rotate`: a new key, published now, signing after `delay` seconds (long
    /// enough for clients' cached JWKS to learn it); the current key keeps verifying until the
    /// tokens it signed have expired.
    public func rotate(after delay: TimeInterval) async throws -> SigningKeyRecord {
        try await add(pem: SigningKeyPEM.generate(), after: delay, action: .keyRotated)
    }

    /// `latchkey keys import`: an operator's own ES256 (P-256) private key in PEM, scheduled like a
    /// rotation.
    public func importKey(pem: String, after delay: TimeInterval) async throws -> SigningKeyRecord {
        guard (try? SigningKeyPEM.publicJWK(pem: pem, kid: "")) != nil else {
            throw AuthError.validation("The file is not an EC P-256 private key in PEM (BEGIN PRIVATE KEY or BEGIN EC PRIVATE KEY)")
        }
        return try await add(pem: pem, after: delay, action: .keyImported)
    }

    func add(pem: String, after delay: TimeInterval, action: AuditAction) async throws -> SigningKeyRecord {
        try requireStoredKeys()
        guard (0...Self.maximumKeyDelay).contains(delay) else {
            throw AuthError.validation("The delay must be from 0 seconds to 30 days")
        }
        let now = time.now()
        let key = try Self.record(pem: pem, signsFrom: now.addingTimeInterval(delay), now: now, box: box)
        let event = events.event(
            action, userID: nil, name: nil,
            details: ["kid": .string(key.kid), "signs_from": .string(WireJSON.formatDate(key.signsFrom))])
        guard try await store.addSigningKey(key, audit: [event]) else { throw AuthError.validation("This key is stored already") }
        try await reload()
        return key
    }

    /// `latchkey keys retire`: deletes a stored key that does not sign now, at once. Every token
    /// it signed stops verifying (on other instances within their reload interval): after a key
    /// leak, rotate with no delay, then retire the leaked key. Users keep their sessions, since
    /// refresh tokens are not signed by it.
    public func retire(kid: String) async throws {
        try requireStoredKeys()
        try await reload()
        guard try await store.signingKeys().contains(where: { $0.kid == kid }) else {
            throw AuthError(.notFound, "No stored signing key has the id \(kid)")
        }
        guard issuer.signingKeyID != kid else {
            throw AuthError.validation("Key \(kid) signs now: rotate first (latchkey keys rotate --delay 0s), then retire it")
        }
        let event = events.event(.keyRetired, userID: nil, name: nil, details: ["kid": .string(kid)])
        guard try await store.deleteSigningKeys(kids: [kid], audit: [event]) == 1 else {
            throw AuthError(.notFound, "No stored signing key has the id \(kid)")
        }
        try await reload()
    }

    /// `latchkey keys service-token`: a token for the admin API, as Supabase's `service_role`
    /// key: an admin `role`, no `sub`, `exp` after `lifetime` seconds (none when `nil`), signed
    /// by the key that signs now. It verifies for as long as that key does: until it is retired,
    /// or a token lifetime after the next rotation takes over. Recorded in the audit log (never
    /// the token).
    public func serviceToken(role: String, lifetime: TimeInterval?) async throws -> (token: String, expiresAt: Date?) {
        guard settings.adminRoles.contains(role) else {
            throw AuthError.validation("role must be one of the admin roles: \(settings.adminRoles.joined(separator: ", "))")
        }
        if let lifetime, !(60...GoDuration.longest).contains(lifetime) {
            throw AuthError.validation("The lifetime must be at least a minute (or none)")
        }
        let now = time.now()
        let expiresAt = lifetime.map { now.addingTimeInterval($0) }
        let claims = AccessTokenClaims(
            iss: settings.issuerClaim, exp: expiresAt.map { Int($0.timeIntervalSince1970) }, iat: Int(now.timeIntervalSince1970),
            role: role)
        let token = try await issuer.sign(claims)
        var details: [String: JSONValue] = ["role": .string(role)]
        details["expires_at"] = expiresAt.map { .string(WireJSON.formatDate($0)) } ?? .null
        details["kid"] = issuer.signingKeyID.map(JSONValue.string) ?? .null
        try await store.appendAudit([events.event(.serviceTokenIssued, userID: nil, name: nil, details: details)])
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
    public func reload() async throws {
        guard issuer.usesStoredKeys else { return }
        let keys = try await store.signingKeys()
        try await store.deleteSigningKeys(kids: SigningKeyRecord.obsolete(keys, at: time.now(), retention: issuer.retention))
        try await issuer.install(keys, privatePEM: open)
    }

    /// A stored key's private PEM.
    public func open(_ key: SigningKeyRecord) throws -> String {
        try Self.open(key, box: box)
    }
}
