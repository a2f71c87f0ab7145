import Foundation
import JWTKit

/// Apple's client secret for Sign in with Apple on the web: an ES256 JWT signed with the team's
/// `.p8` key (`kid` its key id) with `iss` the team id, `sub` the Services ID, `aud`
/// `https://appleid.apple.com`, valid for 30 days (Apple allows six months).
public struct AppleClientSecret: Sendable {
    public var token: String
    public var expiresAt: Date

    static let lifetime: TimeInterval = 30 * 86_400

    struct Claims: JWTPayload {
        var iss: IssuerClaim
        var sub: SubjectClaim
        var aud: AudienceClaim
        var iat: IssuedAtClaim
        var exp: ExpirationClaim

        func verify(using algorithm: some JWTAlgorithm) throws {}
    }

    /// Whether `privateKeyPEM` is a key the secret can be signed with (an EC P-256 private key).
    public static func isUsable(privateKeyPEM: String) -> Bool {
        (try? ES256PrivateKey(pem: privateKeyPEM)) != nil
    }

    /// A new secret for `clientID`, from the team's key.
    public static func make(teamID: String, keyID: String, privateKeyPEM: String, clientID: String, now: Date) async throws
        -> AppleClientSecret
    {
        let key = try ES256PrivateKey(pem: privateKeyPEM)
        let expiresAt = now.addingTimeInterval(lifetime)
        let claims = Claims(
            iss: IssuerClaim(value: teamID), sub: SubjectClaim(value: clientID), aud: AudienceClaim(value: ["https://appleid.apple.com"]),
            iat: IssuedAtClaim(value: now), exp: ExpirationClaim(value: expiresAt))
        let kid = JWKIdentifier(string: keyID)
        let keys = await JWTKeyCollection().add(ecdsa: key, kid: kid)
        let token = try await keys.sign(claims, kid: kid)
        return AppleClientSecret(token: token, expiresAt: expiresAt)
    }
}
