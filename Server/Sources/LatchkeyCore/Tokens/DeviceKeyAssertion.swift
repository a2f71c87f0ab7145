import Foundation
import JWTKit

/// The claims of a device-key sign-in assertion (RFC 7523): `iss` names the registered key,
/// `sub` the user, `aud` this server's token endpoint; `exp` at most five minutes ahead and a
/// `jti` that is never accepted twice. The times are checked by the service against its clock.
struct DeviceKeyAssertion: JWTPayload {
    var iss: IssuerClaim
    var sub: SubjectClaim
    var aud: AudienceClaim
    var exp: ExpirationClaim
    var iat: IssuedAtClaim?
    var jti: IDClaim

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
