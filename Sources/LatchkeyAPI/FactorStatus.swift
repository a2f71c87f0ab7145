/// Whether a factor counts yet (`status`). An open set, like ``ErrorCode``: a value this version
/// does not name still decodes.
public struct FactorStatus: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The wire value, e.g. `verified`.
    public let rawValue: String

    /// A status from its wire value.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A status from a string literal.
    public init(stringLiteral value: String) { self.rawValue = value }

    public init(from decoder: any Decoder) throws { self.rawValue = try decoder.singleValueContainer().decode(String.self) }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// The wire value.
    public var description: String { rawValue }

    /// A code from it was verified: the factor counts toward `aal2`.
    public static let verified: FactorStatus = "verified"
    /// Enrolled, but no code verified yet (an enrolment the user never finished).
    public static let unverified: FactorStatus = "unverified"
}

/// The kind of a factor (`factor_type`). An open set: a kind this version does not name still
/// decodes.
public struct FactorType: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The wire value, e.g. `totp`.
    public let rawValue: String

    /// A kind from its wire value.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A kind from a string literal.
    public init(stringLiteral value: String) { self.rawValue = value }

    public init(from decoder: any Decoder) throws { self.rawValue = try decoder.singleValueContainer().decode(String.self) }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// The wire value.
    public var description: String { rawValue }

    /// An authenticator app (RFC 6238).
    public static let totp: FactorType = "totp"
    /// Codes by SMS (GoTrue; not served by Latchkey).
    public static let phone: FactorType = "phone"
    /// A security key or passkey (GoTrue; not served by Latchkey yet).
    public static let webauthn: FactorType = "webauthn"
}
