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
            publicJWK: try TokenIssuer.publicJWK(pem: pem, kid: kid), createdAt: now, signsFrom: signsFrom)
    }

    /// `latchkey keys rotate`: a new key, published now, signing after `delay` seconds (long
    /// enough for clients' cached JWKS to learn it); the current key keeps verifying until the
    /// tokens it signed have expired.
    public func rotateSigningKey(after delay: TimeInterval) async throws -> SigningKeyRecord {
        try await addSigningKey(pem: TokenIssuer.generateES256PEM(), after: delay, action: .keyRotated)
    }

    /// `latchkey keys import`: an operator's own ES256 (P-256) private key in PEM, scheduled like a
    /// rotation.
    public func importSigningKey(pem: String, after delay: TimeInterval) async throws -> SigningKeyRecord {
        guard (try? TokenIssuer.publicJWK(pem: pem, kid: "")) != nil else {
            throw AuthError.validation("The file is not an EC P-256 private key in PEM (BEGIN PRIVATE KEY or BEGIN EC PRIVATE KEY)")
        }
        return try await addSigningKey(pem: pem, after: delay, action: .keyImported)
    }

    func addSigningKey(pem: String, after delay: TimeInterval, action: AuditAction) async throws -> SigningKeyRecord {
        guard issuer.usesStoredKeys else {
            throw AuthError.validation("Tokens are signed with keys from GOTRUE_JWT_KEYS or GOTRUE_JWT_SECRET: change them there")
        }
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

    /// Re-reads the stored keys into the issuer (a rotation by another process, a key whose time
    /// to sign came) and deletes those no valid token can carry any more.
    public func reloadSigningKeys() async throws {
        guard issuer.usesStoredKeys else { return }
        let keys = try await store.signingKeys()
        try await store.deleteSigningKeys(kids: TokenIssuer.obsolete(keys, at: time.now(), retention: issuer.retention))
        try await issuer.install(keys, privatePEM: openSigningKey)
    }

    /// A stored key's private PEM.
    public func openSigningKey(_ key: SigningKeyRecord) throws -> String {
        String(decoding: try keyBox.open(key.sealedPrivateKey, context: key.kid), as: UTF8.self)
    }
}
