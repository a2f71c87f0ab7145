import Foundation
import LatchkeyAPI

/// The claims of a Latchkey access token, GoTrue's `AccessTokenClaims`.
///
/// Everything is optional when reading, because admin tokens (`role` = `service_role`) may carry
/// no `sub`, `exp` or `aud`; ``isValid(at:)`` checks `exp` and `nbf` whenever they are present.
/// Only the claims: signing and verifying are a ``TokenIssuing``'s.
public struct AccessTokenClaims: Codable, Sendable, Equatable {
    public var iss: String?
    public var sub: String?
    public var aud: String?
    public var exp: Int?
    public var iat: Int?
    public var nbf: Int?
    public var email: String?
    public var phone: String?
    public var appMetadata: [String: JSONValue]?
    public var userMetadata: [String: JSONValue]?
    public var role: String?
    public var aal: String?
    public var amr: [AuthenticationMethod]?
    public var sessionID: String?
    public var isAnonymous: Bool?
    /// The OAuth client a token of a client's session was issued to (#40).
    public var clientID: String?
    /// The scopes granted to that client, separated by spaces.
    public var scope: String?
    /// The resource (RFC 8707) a client's token is for, signed as a second `aud` after `aud`
    /// (which reading keeps, as it keeps the first of a list).
    public var resource: String?
    /// Every claim, as a custom access token hook answered them: signed as they are, in place of
    /// the ones above (which hold the known ones, read from them).
    public var custom: [String: JSONValue]?

    public init(
        iss: String? = nil, sub: String? = nil, aud: String? = nil, exp: Int? = nil, iat: Int? = nil,
        email: String? = nil, phone: String? = nil, appMetadata: [String: JSONValue]? = nil,
        userMetadata: [String: JSONValue]? = nil, role: String? = nil, aal: String? = nil,
        amr: [AuthenticationMethod]? = nil, sessionID: String? = nil, isAnonymous: Bool? = nil
    ) {
        self.iss = iss
        self.sub = sub
        self.aud = aud
        self.exp = exp
        self.iat = iat
        self.email = email
        self.phone = phone
        self.appMetadata = appMetadata
        self.userMetadata = userMetadata
        self.role = role
        self.aal = aal
        self.amr = amr
        self.sessionID = sessionID
        self.isAnonymous = isAnonymous
    }

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, exp, iat, nbf, email, phone, role, aal, amr
        case appMetadata = "app_metadata"
        case userMetadata = "user_metadata"
        case sessionID = "session_id"
        case isAnonymous = "is_anonymous"
        case clientID = "client_id"
        case scope
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        iss = try c.decodeIfPresent(String.self, forKey: .iss)
        sub = try c.decodeIfPresent(String.self, forKey: .sub)
        // `aud` may be a string or a list of strings; keep the first.
        if let single = try? c.decodeIfPresent(String.self, forKey: .aud) {
            aud = single
        } else {
            aud = try c.decodeIfPresent([String].self, forKey: .aud)?.first
        }
        exp = try Self.seconds(c.decodeIfPresent(Double.self, forKey: .exp), c, .exp)
        iat = try Self.seconds(c.decodeIfPresent(Double.self, forKey: .iat), c, .iat)
        nbf = try Self.seconds(c.decodeIfPresent(Double.self, forKey: .nbf), c, .nbf)
        email = try c.decodeIfPresent(String.self, forKey: .email)
        phone = try c.decodeIfPresent(String.self, forKey: .phone)
        appMetadata = try c.decodeIfPresent([String: JSONValue].self, forKey: .appMetadata)
        userMetadata = try c.decodeIfPresent([String: JSONValue].self, forKey: .userMetadata)
        role = try c.decodeIfPresent(String.self, forKey: .role)
        aal = try c.decodeIfPresent(String.self, forKey: .aal)
        amr = try? c.decodeIfPresent([AuthenticationMethod].self, forKey: .amr)
        sessionID = try c.decodeIfPresent(String.self, forKey: .sessionID)
        isAnonymous = try c.decodeIfPresent(Bool.self, forKey: .isAnonymous)
        clientID = try? c.decodeIfPresent(String.self, forKey: .clientID)
        scope = try? c.decodeIfPresent(String.self, forKey: .scope)
    }

    public func encode(to encoder: any Encoder) throws {
        if let custom {
            try JSONValue.object(custom).encode(to: encoder)
            return
        }
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(iss, forKey: .iss)
        try c.encodeIfPresent(sub, forKey: .sub)
        if let aud, let resource {
            try c.encode([aud, resource], forKey: .aud)
        } else {
            try c.encodeIfPresent(aud, forKey: .aud)
        }
        try c.encodeIfPresent(exp, forKey: .exp)
        try c.encodeIfPresent(iat, forKey: .iat)
        try c.encodeIfPresent(nbf, forKey: .nbf)
        try c.encodeIfPresent(email, forKey: .email)
        try c.encodeIfPresent(phone, forKey: .phone)
        try c.encodeIfPresent(appMetadata, forKey: .appMetadata)
        try c.encodeIfPresent(userMetadata, forKey: .userMetadata)
        try c.encodeIfPresent(role, forKey: .role)
        try c.encodeIfPresent(aal, forKey: .aal)
        try c.encodeIfPresent(amr, forKey: .amr)
        try c.encodeIfPresent(sessionID, forKey: .sessionID)
        try c.encodeIfPresent(isAnonymous, forKey: .isAnonymous)
        try c.encodeIfPresent(clientID, forKey: .clientID)
        try c.encodeIfPresent(scope, forKey: .scope)
    }

    /// A time claim as whole seconds; one past what `Int` holds is an error, not a crash.
    private static func seconds(
        _ value: Double?, _ container: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys
    ) throws -> Int? {
        guard let value else { return nil }
        guard value.isFinite, let seconds = Int(exactly: value.rounded(.towardZero)) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "not a time in seconds")
        }
        return seconds
    }

    /// Whether the time claims admit the token at `now`: not expired, and not issued for later
    /// (with 30 seconds of leeway for clocks).
    public func isValid(at now: Date) -> Bool {
        let seconds = Int(now.timeIntervalSince1970)
        if let exp, exp <= seconds { return false }
        if let nbf, nbf > seconds + 30 { return false }
        return true
    }
}
