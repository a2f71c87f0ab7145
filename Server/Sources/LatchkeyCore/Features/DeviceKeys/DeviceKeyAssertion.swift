import Foundation

/// The claims of a device-key sign-in assertion (RFC 7523): `iss` names the registered key,
/// `sub` the user, `aud` this server's token endpoint; `exp` at most five minutes ahead and a
/// `jti` that is never accepted twice. ``DeviceKeySignIn`` checks them against its clock.
public struct DeviceKeyAssertion: Sendable, Equatable {
    public var iss: String
    public var sub: String
    /// Every audience the assertion names (JWT allows one or a list).
    public var aud: [String]
    public var exp: Date
    public var iat: Date?
    public var jti: String

    public init(iss: String, sub: String, aud: [String], exp: Date, iat: Date? = nil, jti: String) {
        self.iss = iss
        self.sub = sub
        self.aud = aud
        self.exp = exp
        self.iat = iat
        self.jti = jti
    }
}
